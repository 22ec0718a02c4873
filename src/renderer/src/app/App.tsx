import { useEffect, useRef, useState } from 'react';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { Icon } from '../components/Icon';
import { useEvalStore } from '../features/eval/store';
import { useModelsStore } from '../features/models/store';
import { useSolveStore } from '../features/plans/solveStore';
import { usePlansStore } from '../features/plans/store';
import { RepoSwitcher } from '../features/repos/RepoSwitcher';
import { useReposStore } from '../features/repos/store';
import { useRunsStore } from '../features/runs/store';
import { CommandPalette } from './CommandPalette';
import './shell.css';
import { PAGES } from './pages';
import { paletteEntries, type PaletteEntry } from './paletteEntries';
import { isTextField, keyAction, pageShortcut } from './shortcuts';
import { ShortcutSheet } from './ShortcutSheet';
import { StatusBar } from './StatusBar';
import { navSelectors, PAGE_IDS, useNavStore } from './store/navStore';

/** The workbench: activity bar, main area, status bar. */
export function App() {
  const page = useNavStore(navSelectors.page);
  const go = useNavStore((s) => s.go);

  const [palette, setPalette] = useState<PaletteEntry[] | null>(null);
  const [isSheetOpen, setSheetOpen] = useState(false);
  const pendingSince = useRef<number | null>(null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const action = keyAction(
        { key: event.key, ctrlKey: event.ctrlKey, metaKey: event.metaKey, altKey: event.altKey, inField: isTextField(event.target) },
        pendingSince.current,
        performance.now(),
      );
      pendingSince.current = action.kind === 'pending' ? performance.now() : null;
      if (action.kind === 'none' || action.kind === 'pending') return;
      event.preventDefault();
      if (action.kind === 'palette') {
        setSheetOpen(false);
        setPalette(paletteEntries(() => setSheetOpen(true)));
      } else if (action.kind === 'sheet') setSheetOpen(true);
      else go(action.page);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [go]);

  const Page = PAGES[page].component;
  return (
    <div className="workbench">
      <nav className="activity-bar" aria-label="Pages">
        {PAGE_IDS.map((id) => (
          <button
            key={id}
            type="button"
            className={id === page ? 'activity active' : 'activity'}
            aria-current={id === page ? 'page' : undefined}
            aria-label={PAGES[id].label}
            title={`${PAGES[id].label} (${pageShortcut(id)})`}
            onClick={() => go(id)}
          >
            <Icon name={id} />
            <span className="activity-label">{PAGES[id].label}</span>
          </button>
        ))}
      </nav>
      <main className="main-area" aria-label={PAGES[page].label}>
        <RepoSwitcher />
        <div className="main-scroll">
          <ErrorBoundary resetKey={page}>
            <Page />
          </ErrorBoundary>
        </div>
      </main>
      <StatusBar />
      {palette ? <CommandPalette entries={palette} onClose={() => setPalette(null)} /> : null}
      {isSheetOpen ? <ShortcutSheet onClose={() => setSheetOpen(false)} /> : null}
    </div>
  );
}

/**
 * Wire pushed events to the stores once, at boot. Every run/* event goes to the runs store; the end
 * of a run is routed to the feature it concerns here, so an evaluation or a pull that ends while
 * another page is shown is recorded all the same.
 */
export function connectStores(): () => void {
  const runs = useRunsStore.getState();
  const repos = useReposStore.getState();
  const offs = [
    runs.connect((finished) => {
      if (finished.kind === 'eval') void useEvalStore.getState().runFinished(finished);
      else if (finished.kind === 'pull') useModelsStore.getState().pullFinished(finished);
      else if (finished.kind === 'setup') useModelsStore.getState().setupFinished(finished);
      else if (finished.kind === 'model-check') useModelsStore.getState().checkFinished(finished);
      else if (finished.kind === 'plan') void usePlansStore.getState().runFinished(finished);
      else if (finished.kind === 'solve') void useSolveStore.getState().runFinished(finished);
    }),
    repos.connect(),
  ];
  void runs.load();
  void repos.load();
  return () => offs.forEach((off) => off());
}
