import { create } from 'zustand';
import type { EvalReport, EvalReportSummary, RunFinished, RunInfo } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { runsSelectors, useRunsStore } from '../runs/store';
import type { RunEntry } from '../runs/reducers';
import { evalReducers, type EvalRunState, type FollowedEval } from './reducers';

type EvalOp = 'load' | 'open' | 'start';

interface EvalState {
  reports: EvalReportSummary[];
  isLoaded: boolean;
  selectedId: string | null;
  report: EvalReport | null;
  /** The run the page follows (its state is in the runs store). */
  followed: FollowedEval | null;
  errors: Partial<Record<EvalOp, OpError | null>>;
}

interface EvalActions {
  load(): Promise<void>;
  open(id: string): Promise<void>;
  start(input: { repoPath: string; commits?: number }): Promise<void>;
  cancel(): Promise<void>;
  /**
   * An evaluation ended (connectStores routes every eval run's end here, whichever page is open):
   * the followed run's report is listed and opened, so it is there when the page is shown.
   */
  runFinished(finished: RunFinished<'eval'>): Promise<void>;
}

type Store = EvalState & EvalActions;

/** Evaluation reports, the one on screen, and the run the page follows. */
export const useEvalStore = create<Store>()((set, get) => {
  const fail = (op: EvalOp, error: unknown) => set((s) => ({ errors: { ...s.errors, [op]: toOpError(error) } }));
  return {
    reports: [],
    isLoaded: false,
    selectedId: null,
    report: null,
    followed: null,
    errors: {},
    load: async () => {
      try {
        const [reports, running] = await Promise.all([client().call('eval/list', {}), client().call('run/list', { includeFinished: false })]);
        // A run going on since before a reload is shown as running, not as a blank form.
        const going = running.find((r): r is RunInfo<'eval'> => r.kind === 'eval');
        if (going) useRunsStore.getState().track(going);
        const followedRuns = (s: EvalState) => s.followed && runsSelectors.byId(s.followed.runId)(useRunsStore.getState())?.status === 'running';
        set((s) => ({
          reports,
          isLoaded: true,
          errors: { ...s.errors, load: null },
          followed: going && !followedRuns(s) ? evalReducers.adopt(going) : s.followed,
        }));
        const { selectedId } = get();
        const first = reports[0];
        if (!selectedId && first) await get().open(first.id);
      } catch (error) {
        set({ isLoaded: true });
        fail('load', error);
      }
    },
    open: async (id) => {
      set({ selectedId: id });
      try {
        const report = await client().call('eval/get', { id });
        if (get().selectedId === id) set((s) => ({ report, errors: { ...s.errors, open: null } }));
      } catch (error) {
        fail('open', error);
      }
    },
    start: async ({ repoPath, commits }) => {
      set((s) => ({ errors: { ...s.errors, start: null } }));
      try {
        const { run } = await client().call('eval/start', { repoPath: repoPath.trim(), ...(commits ? { commits } : {}) });
        const followed = evalReducers.started(run.runId, { repoPath: repoPath.trim(), commits });
        useRunsStore.getState().track(run);
        set({ followed });
      } catch (error) {
        fail('start', error);
      }
    },
    cancel: async () => {
      const run = get().followed;
      if (!run) return;
      try {
        await client().call('run/cancel', { runId: run.runId });
      } catch (error) {
        fail('start', error);
      }
    },
    runFinished: async (finished) => {
      const reportId = finished.result?.reportId;
      if (finished.runId !== get().followed?.runId || finished.status !== 'done' || !reportId) return;
      set({ selectedId: reportId });
      await get().load();
      await get().open(reportId);
    },
  };
});

/** Selectors of the evaluation store. */
export const evalSelectors = {
  reports: (s: EvalState) => s.reports,
  isLoaded: (s: EvalState) => s.isLoaded,
  selectedId: (s: EvalState) => s.selectedId,
  report: (s: EvalState) => s.report,
  followed: (s: EvalState) => s.followed,
  error: (op: EvalOp) => (s: EvalState) => s.errors[op] ?? null,
};

/** The followed evaluation as the page shows it: what it is (this store) and how it goes (the runs store). */
export function useEvalRun(): EvalRunState | null {
  const followed = useEvalStore(evalSelectors.followed);
  const run = useRunsStore(runsSelectors.byId(followed?.runId ?? null)) as RunEntry<'eval'> | null;
  return followed ? evalReducers.view(followed, run) : null;
}
