import { create } from 'zustand';
import type { ModelCallDetail, ModelCallSummary, RunRecord } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';

/** The Logs table's filters. */
export interface LogFilters {
  runId: string;
  stage: string;
  model: string;
  errorsOnly: boolean;
}

const PAGE = 50;

/** A call to open in the Logs page from elsewhere (a verdict of the Context inspector). */
export interface CallTarget {
  /** The repository whose log holds the call; null for the app-wide log. */
  repoId: string | null;
  callId: number;
  /** The run the call belongs to: the table shows that run's calls. */
  runId?: string;
}

interface LogsState {
  /** Whose log is shown: a repository's (its runs' calls) or, when null, the app-wide one. */
  repoId: string | null;
  /** Which log the page follows: the app's current repository's, or the app-wide one (model tests, pulls). */
  scope: 'repository' | 'app';
  filters: LogFilters;
  calls: ModelCallSummary[];
  /** The run the table is filtered by, as the raw log recorded it (task_runs), when it is there. */
  run: RunRecord | null;
  total: number;
  offset: number;
  selected: ModelCallDetail | null;
  isLoaded: boolean;
  error: OpError | null;
}

interface LogsActions {
  load(offset?: number): Promise<void>;
  setFilters(patch: Partial<LogFilters>): Promise<void>;
  /** Show the calls of one run (the link from a run, and from a call to its run). */
  showRun(runId: string): Promise<void>;
  open(id: number): Promise<void>;
  close(): void;
  /** Show a repository's log, or the app-wide one (null). */
  showLog(repoId: string | null): Promise<void>;
  /** Follow the current repository's log or the app-wide one; `repoId` is the app's current repository. */
  setScope(scope: 'repository' | 'app', repoId: string | null): Promise<void>;
  /** Open one call: its log, its run's calls in the table, the call whole. */
  openCall(target: CallTarget): Promise<void>;
  /** Show the calls of one run of a repository's log (null: the app-wide log). */
  openRun(target: { repoId: string | null; runId: string }): Promise<void>;
}

/** Model calls from the audit log. */
export const useLogsStore = create<LogsState & LogsActions>()((set, get) => ({
  repoId: null,
  scope: 'repository',
  filters: { runId: '', stage: '', model: '', errorsOnly: false },
  calls: [],
  run: null,
  total: 0,
  offset: 0,
  selected: null,
  isLoaded: false,
  error: null,
  load: async (offset = get().offset) => {
    const f = get().filters;
    try {
      const page = await client().call('logs/list', {
        ...(get().repoId ? { repoId: get().repoId as string } : {}),
        ...(f.runId ? { runId: f.runId } : {}),
        ...(f.stage ? { stage: f.stage } : {}),
        ...(f.model ? { model: f.model } : {}),
        errorsOnly: f.errorsOnly,
        limit: PAGE,
        offset,
      });
      set({ calls: page.calls, run: page.run ?? null, total: page.total, offset, isLoaded: true, error: null });
    } catch (error) {
      set({ error: toOpError(error), isLoaded: true });
    }
  },
  setFilters: async (patch) => {
    set((s) => ({ filters: { ...s.filters, ...patch } }));
    await get().load(0);
  },
  showRun: async (runId) => {
    set({ filters: { runId, stage: '', model: '', errorsOnly: false }, selected: null });
    await get().load(0);
  },
  open: async (id) => {
    try {
      const repoId = get().repoId;
      set({ selected: await client().call('logs/get', { id, ...(repoId ? { repoId } : {}) }), error: null });
    } catch (error) {
      set({ error: toOpError(error) });
    }
  },
  close: () => set({ selected: null }),
  showLog: async (repoId) => {
    set({ repoId, selected: null });
    await get().load(0);
  },
  setScope: async (scope, repoId) => {
    set({ scope });
    await get().showLog(scope === 'repository' ? repoId : null);
  },
  openCall: async ({ repoId, callId, runId }) => {
    set({ repoId, scope: repoId ? 'repository' : 'app', selected: null, filters: { runId: runId ?? '', stage: '', model: '', errorsOnly: false } });
    await Promise.all([get().load(0), get().open(callId)]);
  },
  openRun: async ({ repoId, runId }) => {
    set({ repoId, scope: repoId ? 'repository' : 'app' });
    await get().showRun(runId);
  },
}));

/** Page size of the Logs table. */
export const LOGS_PAGE_SIZE = PAGE;
