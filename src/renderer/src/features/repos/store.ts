import { create } from 'zustand';
import type { RepoInfo, SkippedFile } from '../../../../shared/contract';
import { useNavStore } from '../../app/store/navStore';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { useRunsStore } from '../runs/store';
import { repoReducers } from './reducers';

/** A folder outside git with this many files or more is indexed only after the user says yes. */
export const LARGE_FOLDER_FILES = 5_000;
/** Where the count before adding stops (it only has to tell "large" apart). */
const PROBE_LIMIT = 20_000;

/** Operations whose failures are shown where they happened. */
type RepoOp = 'load' | 'add' | 'action' | 'skipped';

interface ReposState {
  repos: RepoInfo[];
  isLoaded: boolean;
  /** Skipped files by repository id, once asked for. */
  skipped: Record<string, SkippedFile[]>;
  isAdding: boolean;
  errors: Partial<Record<RepoOp, OpError | null>>;
  /** What the last add said besides an error: the folder was already added (and is now selected). */
  addNotice: { repoId: string; message: string } | null;
  /** A large folder that is not a git repository, waiting for the user to say yes before it is indexed. */
  confirmAdd: { path: string; files: number; capped: boolean } | null;
}

interface ReposActions {
  load(): Promise<void>;
  /**
   * Register a folder by path and start indexing it; makes it the current repository. A folder
   * already added is selected and said so, with no run (a re-index is the row's button).
   */
  add(path: string, options?: { confirmed?: boolean }): Promise<boolean>;
  /** Say no to indexing the large folder waiting for confirmation. */
  cancelAdd(): void;
  /** Show the host's folder picker (Electron) and add the chosen folder. */
  pickAndAdd(): Promise<void>;
  reindex(repoId: string, full?: boolean): Promise<void>;
  remove(repoId: string): Promise<void>;
  setWatching(repoId: string, enabled: boolean): Promise<void>;
  loadSkipped(repoId: string): Promise<void>;
  cancel(runId: string): Promise<void>;
  clearError(op: RepoOp): void;
  connect(): () => void;
}

type Store = ReposState & ReposActions;

function fail(set: (partial: (s: Store) => Partial<Store>) => void, op: RepoOp, error: unknown): void {
  set((s) => ({ errors: { ...s.errors, [op]: toOpError(error) } }));
}

/** Keep the current repository valid: the first one when none is chosen or the chosen one left. */
function syncCurrent(repos: RepoInfo[]): void {
  const nav = useNavStore.getState();
  if (nav.repoId && repos.some((r) => r.id === nav.repoId)) return;
  nav.selectRepo(repos[0]?.id ?? null);
}


/** Registered repositories and their skipped files (their index and embedding runs are in the runs store). */
export const useReposStore = create<Store>()((set, get) => ({
  repos: [],
  isLoaded: false,
  skipped: {},
  isAdding: false,
  errors: {},
  addNotice: null,
  confirmAdd: null,
  load: async () => {
    try {
      const repos = await client().call('repos/list', {});
      set((s) => ({ repos, isLoaded: true, errors: { ...s.errors, load: null } }));
      syncCurrent(repos);
    } catch (error) {
      set({ isLoaded: true });
      fail(set, 'load', error);
    }
  },
  add: async (path, options = {}) => {
    set((s) => ({ isAdding: true, errors: { ...s.errors, add: null }, addNotice: null, confirmAdd: null }));
    try {
      const known = await client().call('repos/find', { path: path.trim() });
      if (known) {
        set((s) => ({ repos: repoReducers.upsert(s.repos, known), isAdding: false, addNotice: { repoId: known.id, message: `${known.name} is already added (${known.path}); it is selected below.` } }));
        useNavStore.getState().selectRepo(known.id);
        return true;
      }
      if (!options.confirmed) {
        const probe = await client().call('repos/probe', { path: path.trim(), limit: PROBE_LIMIT });
        if (!probe.isGit && probe.files !== null && probe.files >= LARGE_FOLDER_FILES) {
          set({ isAdding: false, confirmAdd: { path: probe.path, files: probe.files, capped: probe.capped } });
          return false;
        }
      }
      const { repo, run } = await client().call('repos/add', { path: path.trim() });
      set((s) => ({ repos: repoReducers.upsert(s.repos, repo), isAdding: false }));
      // The run's record, in case its start event comes later or never reached this window.
      useRunsStore.getState().track(run);
      useNavStore.getState().selectRepo(repo.id);
      return true;
    } catch (error) {
      set({ isAdding: false });
      fail(set, 'add', error);
      return false;
    }
  },
  cancelAdd: () => set({ confirmAdd: null }),
  pickAndAdd: async () => {
    try {
      const picked = await client().call('host/pickFolder', { title: 'Add repository' });
      if (picked.path) await get().add(picked.path);
    } catch (error) {
      fail(set, 'add', error);
    }
  },
  reindex: async (repoId, full = false) => {
    try {
      const { run } = await client().call('repos/reindex', { repoId, full });
      set((s) => ({ errors: { ...s.errors, action: null } }));
      useRunsStore.getState().track(run);
    } catch (error) {
      fail(set, 'action', error);
    }
  },
  remove: async (repoId) => {
    try {
      await client().call('repos/remove', { repoId });
      set((s) => ({ repos: repoReducers.remove(s.repos, repoId), errors: { ...s.errors, action: null } }));
      syncCurrent(get().repos);
    } catch (error) {
      fail(set, 'action', error);
    }
  },
  setWatching: async (repoId, enabled) => {
    try {
      const repo = await client().call('repos/watch', { repoId, enabled });
      set((s) => ({ repos: repoReducers.upsert(s.repos, repo), errors: { ...s.errors, action: null } }));
    } catch (error) {
      fail(set, 'action', error);
    }
  },
  loadSkipped: async (repoId) => {
    try {
      const files = await client().call('repos/skipped', { repoId });
      set((s) => ({ skipped: { ...s.skipped, [repoId]: files }, errors: { ...s.errors, skipped: null } }));
    } catch (error) {
      fail(set, 'skipped', error);
    }
  },
  cancel: async (runId) => {
    try {
      await client().call('run/cancel', { runId });
    } catch (error) {
      fail(set, 'action', error);
    }
  },
  clearError: (op) => set((s) => ({ errors: { ...s.errors, [op]: null } })),
  connect: () => {
    const c = client();
    const offs = [
      c.subscribe('repos/changed', (repo) => {
        set((s) => {
          const skipped = { ...s.skipped };
          // The skipped list is stale once an index ends; it is asked for again when shown.
          if (repo.status !== 'indexing') delete skipped[repo.id];
          return { repos: repoReducers.upsert(s.repos, repo), skipped };
        });
        syncCurrent(get().repos);
      }),
      c.subscribe('repos/removed', ({ repoId }) => {
        set((s) => ({ repos: repoReducers.remove(s.repos, repoId) }));
        syncCurrent(get().repos);
      }),
    ];
    return () => offs.forEach((off) => off());
  },
}));

/** Selectors of the repositories store. */
export const reposSelectors = {
  repos: (s: ReposState) => s.repos,
  isLoaded: (s: ReposState) => s.isLoaded,
  byId: (repoId: string | null) => (s: ReposState) => s.repos.find((r) => r.id === repoId) ?? null,
  skipped: (repoId: string) => (s: ReposState) => s.skipped[repoId] ?? null,
  error: (op: RepoOp) => (s: ReposState) => s.errors[op] ?? null,
  isAdding: (s: ReposState) => s.isAdding,
  addNotice: (s: ReposState) => s.addNotice,
  confirmAdd: (s: ReposState) => s.confirmAdd,
};
