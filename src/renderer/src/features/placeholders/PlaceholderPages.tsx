import type { ReactNode } from 'react';
import { useNavStore } from '../../app/store/navStore';
import { EmptyState } from '../../components/EmptyState';

/**
 * Plans & Runs is not built yet. Its page says so first, then what they will do, and
 * point at what works today; they give no set-up steps, because no step makes them appear.
 */
function NotBuilt(props: { title: string; children: ReactNode }) {
  const go = useNavStore((s) => s.go);
  return (
    <EmptyState
      title={props.title}
      action={
        <button type="button" onClick={() => go('search')}>
          Go to Search
        </button>
      }
    >
      <p className="not-built" data-testid="not-built">
        <strong>Not built yet.</strong> {props.title} is not part of this version of Clean Room; nothing you add or assign turns it on.
      </p>
      {props.children}
      <p>What works today: adding and indexing repositories, model-free code search with a file view, chat over the code, the model manager, the call log and the evaluation of search.</p>
    </EmptyState>
  );
}

/** Plans & Runs: not built yet; what it will be. */
export function PlansPage() {
  return (
    <NotBuilt title="Plans & Runs">
      <p>
        When it is built: plans list the files and changes a task needs; a solve run carries them out step by step, and every diff waits here for
        your review before it touches your working tree.
      </p>
    </NotBuilt>
  );
}
