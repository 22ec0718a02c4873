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

interface LogsState {
  filters: LogFilters;
  calls: ModelCallSummary[];
  /** The run the table is filtered by, as the raw log recorded it (task_runs), when it is there. */
  run: RunRecord | null;
  total: number;
  offset: number;
  selected: ModelCallDetail | null;
  /** The repository whose raw log is shown (a run of a repository logs its calls there); null: the user-level log. */
  repoId: string | null;
  isLoaded: boolean;
  error: OpError | null;
}

interface LogsActions {
  load(offset?: number): Promise<void>;
  setFilters(patch: Partial<LogFilters>): Promise<void>;
  /** Show the calls of one run (the link from a run, and from a call to its run); `repoId` when the run's calls are in a repository's log. */
  showRun(runId: string, repoId?: string | null): Promise<void>;
  open(id: number): Promise<void>;
  /** Show a repository's log (null: the user-level log). */
  showLog(repoId: string | null): Promise<void>;
  close(): void;
}

/** Model calls from the audit log. */
export const useLogsStore = create<LogsState & LogsActions>()((set, get) => ({
  filters: { runId: '', stage: '', model: '', errorsOnly: false },
  calls: [],
  run: null,
  total: 0,
  offset: 0,
  selected: null,
  repoId: null,
  isLoaded: false,
  error: null,
  load: async (offset = get().offset) => {
    const f = get().filters;
    try {
      const repoId = get().repoId;
      const page = await client().call('logs/list', {
        ...(repoId ? { repoId } : {}),
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
  showRun: async (runId, repoId = get().repoId) => {
    set({ filters: { runId, stage: '', model: '', errorsOnly: false }, selected: null, repoId: repoId ?? null });
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
  showLog: async (repoId) => {
    set({ repoId, selected: null });
    await get().load(0);
  },
  close: () => set({ selected: null }),
}));

/** Page size of the Logs table. */
export const LOGS_PAGE_SIZE = PAGE;
