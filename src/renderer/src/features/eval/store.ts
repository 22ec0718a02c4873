import { create } from 'zustand';
import type { EvalReport, EvalReportSummary } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { evalReducers, type EvalRunState } from './reducers';

type EvalOp = 'load' | 'open' | 'start';

interface EvalState {
  reports: EvalReportSummary[];
  isLoaded: boolean;
  selectedId: string | null;
  report: EvalReport | null;
  run: EvalRunState | null;
  errors: Partial<Record<EvalOp, OpError | null>>;
}

interface EvalActions {
  load(): Promise<void>;
  open(id: string): Promise<void>;
  start(input: { repoPath: string; commits?: number }): Promise<void>;
  cancel(): Promise<void>;
  /** Follow run events; returns the unsubscribe function. */
  connect(): () => void;
}

type Store = EvalState & EvalActions;

/** Evaluation reports, the one on screen, and the run the page started. */
export const useEvalStore = create<Store>()((set, get) => {
  const fail = (op: EvalOp, error: unknown) => set((s) => ({ errors: { ...s.errors, [op]: toOpError(error) } }));
  return {
    reports: [],
    isLoaded: false,
    selectedId: null,
    report: null,
    run: null,
    errors: {},
    load: async () => {
      try {
        const [reports, running] = await Promise.all([client().call('eval/list', {}), client().call('run/list', { includeFinished: false })]);
        // A run going on since before a reload is shown as running, not as a blank form.
        const going = running.find((r) => r.kind === 'eval');
        set((s) => ({
          reports,
          isLoaded: true,
          errors: { ...s.errors, load: null },
          run: going && (!s.run || s.run.status !== 'running') ? evalReducers.adopt(going) : s.run,
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
        const { runId } = await client().call('eval/start', { repoPath: repoPath.trim(), ...(commits ? { commits } : {}) });
        set({ run: evalReducers.started(runId, { repoPath: repoPath.trim(), commits }) });
      } catch (error) {
        fail('start', error);
      }
    },
    cancel: async () => {
      const run = get().run;
      if (!run) return;
      try {
        await client().call('run/cancel', { runId: run.runId });
      } catch (error) {
        fail('start', error);
      }
    },
    connect: () => {
      const c = client();
      const offs = [
        c.subscribe('run/progress', (p) => set((s) => ({ run: evalReducers.progress(s.run, p) }))),
        c.subscribe('run/finished', (f) => {
          const before = get().run;
          const run = evalReducers.finished(before, f);
          if (run === before) return;
          set({ run });
          if (run?.reportId) {
            set({ selectedId: run.reportId });
            void get().load().then(() => get().open(run.reportId!));
          }
        }),
      ];
      return () => offs.forEach((off) => off());
    },
  };
});

/** Selectors of the evaluation store. */
export const evalSelectors = {
  reports: (s: EvalState) => s.reports,
  isLoaded: (s: EvalState) => s.isLoaded,
  selectedId: (s: EvalState) => s.selectedId,
  report: (s: EvalState) => s.report,
  run: (s: EvalState) => s.run,
  error: (op: EvalOp) => (s: EvalState) => s.errors[op] ?? null,
};
