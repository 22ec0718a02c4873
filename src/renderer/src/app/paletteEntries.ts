import type { RunKind } from '../../../shared/contract';
import { useChatStore } from '../features/chat/store';
import { useReposStore } from '../features/repos/store';
import { useRunsStore } from '../features/runs/store';
import { PAGES } from './pages';
import { pageShortcut } from './shortcuts';
import { PAGE_IDS, useNavStore, type PageId } from './store/navStore';

/** One entry of the command palette. */
export interface PaletteEntry {
  id: string;
  group: 'Pages' | 'Repositories' | 'Conversations' | 'Recent runs' | 'Actions';
  label: string;
  detail?: string;
  run(): void;
}

/** The page a run of each kind is followed on. */
const RUN_PAGE: Partial<Record<RunKind, PageId>> = {
  index: 'repositories',
  embed: 'repositories',
  pull: 'models',
  eval: 'eval',
  chat: 'chat',
  plan: 'plans',
  solve: 'plans',
  retrieve: 'retrieval',
  bootstrap: 'training',
};

/** Runs the palette lists, newest first. */
const RECENT_RUNS = 8;

/** Focus a field once the page that holds it is shown. */
function focusLater(selector: string): void {
  setTimeout(() => document.querySelector<HTMLElement>(selector)?.focus(), 50);
}

/**
 * Everything the palette offers, read from the stores when it opens: pages, repositories,
 * the current repository's conversations, recent runs and actions. Navigation goes through the
 * navigation store's own `go` and `selectRepo`.
 */
export function paletteEntries(openSheet: () => void): PaletteEntry[] {
  const nav = useNavStore.getState();
  const { repos } = useReposStore.getState();
  const chat = useChatStore.getState();
  const { runs } = useRunsStore.getState();
  const current = repos.find((r) => r.id === nav.repoId) ?? null;
  const entries: PaletteEntry[] = PAGE_IDS.map((id) => ({ id: `page:${id}`, group: 'Pages', label: PAGES[id].label, detail: pageShortcut(id), run: () => nav.go(id) }));
  for (const repo of repos) {
    entries.push({ id: `repo:${repo.id}`, group: 'Repositories', label: repo.name, detail: repo.id === nav.repoId ? `${repo.path} · current` : repo.path, run: () => nav.selectRepo(repo.id) });
  }
  if (current && chat.repoId === current.id) {
    for (const c of chat.conversations) {
      entries.push({
        id: `chat:${c.conversationId}`,
        group: 'Conversations',
        label: c.title,
        detail: `${c.messages} messages`,
        run: () => {
          nav.go('chat');
          void chat.open(current.id, c.conversationId);
        },
      });
    }
  }
  for (const r of runs.slice(0, RECENT_RUNS)) {
    const page = RUN_PAGE[r.kind];
    if (page) entries.push({ id: `run:${r.runId}`, group: 'Recent runs', label: r.title, detail: `${r.status} · ${PAGES[page].label}`, run: () => nav.go(page) });
  }
  entries.push(
    {
      id: 'action:add-repo',
      group: 'Actions',
      label: 'Add repository',
      run: () => {
        nav.go('repositories');
        focusLater('[aria-label="Repository folder path"]');
      },
    },
    {
      id: 'action:new-chat',
      group: 'Actions',
      label: 'New conversation',
      run: () => {
        nav.go('chat');
        chat.newConversation();
      },
    },
    {
      id: 'action:search',
      group: 'Actions',
      label: 'Search the code',
      run: () => {
        nav.go('search');
        focusLater('[aria-label="Search query"]');
      },
    },
    { id: 'action:shortcuts', group: 'Actions', label: 'Keyboard shortcuts', detail: '?', run: openSheet },
  );
  if (current) entries.push({ id: 'action:reindex', group: 'Actions', label: `Re-index ${current.name}`, run: () => void useReposStore.getState().reindex(current.id) });
  return entries;
}
