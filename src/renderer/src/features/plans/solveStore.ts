import { create } from 'zustand';
import type { Plan, RunFinished, SolveRunDetail, SolveRunSummary } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { useRunsStore } from '../runs/store';

type SolveOp = 'list' | 'open' | 'start';

interface SolveState {
  repoId: string | null;
  runs: SolveRunSummary[];
  /** The run on screen (its id), and its detail as last read. */
  selectedId: string | null;
  detail: SolveRunDetail | null;
  /** The progress-tree node on screen (kept while another page is shown). */
  node: string | null;
  /** solve run id → the task run (run/* events) that carries it now. */
  taskRuns: Record<string, string>;
  errors: Partial<Record<SolveOp, OpError | null>>;
  /**
   * Asked once before a run whose validation commands would run without a sandbox (this machine
   * has none and the user has not allowed it): what to tell, and the run waiting for the answer.
   */
  sandboxQuestion: { message: string; pending: StartInput } | null;
}

/** What starts a run: a plan's one implement pass, the orchestrator for a task, or a resume. */
type StartInput = { task: string; plan?: Plan; resume?: string };

interface SolveActions {
  load(repoId: string): Promise<void>;
  open(solveRunId: string | null): Promise<void>;
  selectNode(node: string | null): void;
  /** Start a run (asking first when its validation would run without a sandbox). */
  start(input: StartInput): Promise<void>;
  /** The answer to the sandbox question: allow (saved in the user's config, so asked once) and run, or not run. */
  answerSandbox(allow: boolean): Promise<void>;
  /** End a cancelled or interrupted run for good. */
  discard(solveRunId: string): Promise<void>;
  /** A solve run ended or reported progress: re-read the list and the detail on screen. */
  refresh(): Promise<void>;
  runFinished(finished: RunFinished<'solve'>): Promise<void>;
}

/** Solve runs of the current repository and the one on screen. */
export const useSolveStore = create<SolveState & SolveActions>()((set, get) => {
  const fail = (op: SolveOp, error: unknown) => set((s) => ({ errors: { ...s.errors, [op]: toOpError(error) } }));
  return {
    repoId: null,
    runs: [],
    selectedId: null,
    detail: null,
    node: null,
    taskRuns: {},
    errors: {},
    sandboxQuestion: null,
    load: async (repoId) => {
      if (get().repoId !== repoId) set({ repoId, runs: [], selectedId: null, detail: null });
      try {
        const { runs } = await client().call('plans/listRuns', { repoId });
        if (get().repoId === repoId) set((s) => ({ runs, errors: { ...s.errors, list: null } }));
      } catch (error) {
        fail('list', error);
      }
    },
    open: async (solveRunId) => {
      const repoId = get().repoId;
      set({ selectedId: solveRunId, ...(solveRunId === get().detail?.solveRunId ? {} : { detail: null, node: null }) });
      if (!repoId || !solveRunId) return;
      try {
        const { run } = await client().call('plans/getRun', { repoId, solveRunId });
        if (get().selectedId === solveRunId) set((s) => ({ detail: run, errors: { ...s.errors, open: null } }));
      } catch (error) {
        // A run this page just started has no record for its first moments: it is starting, not missing
        // (the live run's refresh opens it again).
        if (toOpError(error)?.code === 'NOT_FOUND' && get().taskRuns[solveRunId] && !get().detail) return;
        fail('open', error);
      }
    },
    selectNode: (node) => set({ node }),
    start: async ({ task, plan, resume }) => {
      const repoId = get().repoId;
      if (!repoId) return;
      set((s) => ({ errors: { ...s.errors, start: null } }));
      try {
        const sandbox = await client().call('plans/sandbox', { repoId });
        if (sandbox.wouldRefuse) {
          set({ sandboxQuestion: { message: sandbox.message, pending: { task, ...(plan ? { plan } : {}), ...(resume ? { resume } : {}) } } });
          return;
        }
        const { run, solveRunId } = await client().call('plans/solve', { repoId, task, ...(plan ? { plan } : {}), ...(resume ? { resume } : {}) });
        const runId = run.runId;
        useRunsStore.getState().track(run);
        set((s) => ({ taskRuns: { ...s.taskRuns, [solveRunId]: runId } }));
        await get().load(repoId);
        await get().open(solveRunId);
      } catch (error) {
        fail('start', error);
      }
    },
    answerSandbox: async (allow) => {
      const question = get().sandboxQuestion;
      set({ sandboxQuestion: null });
      if (!allow || !question) return;
      try {
        await client().call('config/set', { edits: [{ path: ['sandbox', 'allow_unsandboxed_validation'], value: true }] });
      } catch (error) {
        fail('start', error);
        return;
      }
      await get().start(question.pending);
    },
    discard: async (solveRunId) => {
      const repoId = get().repoId;
      if (!repoId) return;
      try {
        await client().call('plans/discardRun', { repoId, solveRunId });
        await get().refresh();
      } catch (error) {
        fail('open', error);
      }
    },
    refresh: async () => {
      const { repoId, selectedId } = get();
      if (!repoId) return;
      await get().load(repoId);
      if (selectedId) await get().open(selectedId);
    },
    runFinished: async (finished) => {
      if (!Object.values(get().taskRuns).includes(finished.runId) && get().repoId === null) return;
      await get().refresh();
    },
  };
});

type State = SolveState;

/** Selectors of the solve store. */
export const solveSelectors = {
  runs: (s: State) => s.runs,
  selectedId: (s: State) => s.selectedId,
  detail: (s: State) => s.detail,
  node: (s: State) => s.node,
  taskRunOf: (solveRunId: string | null) => (s: State) => (solveRunId ? (s.taskRuns[solveRunId] ?? null) : null),
  error: (op: SolveOp) => (s: State) => s.errors[op] ?? null,
};
