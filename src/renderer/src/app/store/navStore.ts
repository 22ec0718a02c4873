import { create } from 'zustand';

/** The pages of the activity bar, in order (Ctrl/Cmd+1..n). */
export const PAGE_IDS = ['repositories', 'search', 'chat', 'plans', 'models', 'logs', 'settings', 'eval', 'retrieval', 'training'] as const;
/** One page of the app. */
export type PageId = (typeof PAGE_IDS)[number];

/**
 * Page ids renamed to one word per idea (issue 23), old → new: a bookmarked `#inspector` or `#data`
 * still opens its page. Deprecated, removed after the next release.
 */
const RENAMED_PAGES: Readonly<Record<string, PageId>> = { inspector: 'retrieval', data: 'training' };

/** The page a URL word names (a renamed page's old id included), or undefined. */
export function pageOf(word: string): PageId | undefined {
  if ((PAGE_IDS as readonly string[]).includes(word)) return word as PageId;
  return Object.prototype.hasOwnProperty.call(RENAMED_PAGES, word) ? RENAMED_PAGES[word] : undefined;
}

interface NavState {
  page: PageId;
  /** The repository the pages work on (its id), when one is selected. */
  repoId: string | null;
}

interface NavActions {
  go(page: PageId): void;
  selectRepo(repoId: string | null): void;
}

/** Which page is shown and which repository is current. */
export const useNavStore = create<NavState & NavActions>()((set) => ({
  page: pageFromHash(),
  repoId: null,
  // The URL follows the page (app/history.ts), in the history so that Back and Forward work.
  go: (page) => set({ page }),
  selectRepo: (repoId) => set({ repoId }),
}));

/** Selectors of the navigation store. */
export const navSelectors = {
  page: (s: NavState) => s.page,
  repoId: (s: NavState) => s.repoId,
};

function pageFromHash(): PageId {
  if (typeof window === 'undefined') return 'repositories';
  const hash = window.location.hash.replace(/^#/, '').split('?')[0]!;
  return pageOf(hash) ?? 'repositories';
}
