import { create } from 'zustand';
import { DEFAULT_RETRIEVAL_STAGES, RETRIEVAL_STAGE_NAMES, type ContextPackage, type RetrievalStageName, type RetrievalSummary, type RunInfo } from '../../../../shared/contract';
import { client, followRunEvents } from '../../lib/client';
import { toOpError } from '../../lib/errors';
import { inspectionReducers, type Inspection } from './reducers';

/** The budget fields as typed (empty: the config's value). */
export interface BudgetDraft {
  contextWindow: string;
  reservedTokens: string;
}

interface InspectorState {
  task: string;
  stages: RetrievalStageName[];
  budget: BudgetDraft;
  /** The config's [budget], shown as the fields' defaults. */
  defaults: { contextWindow: number; reservedTokens: number } | null;
  inspection: Inspection | null;
}

interface InspectorActions {
  setTask(task: string): void;
  toggleStage(stage: RetrievalStageName): void;
  setBudget(patch: Partial<BudgetDraft>): void;
  /** Read the config's [budget] for the fields' defaults. */
  loadDefaults(): Promise<void>;
  /** Run the task on a repository: a retrieve run whose judgments stream in, then its result. */
  run(repoId: string): Promise<void>;
  cancel(): Promise<void>;
  /**
   * Show the repository's running retrieve run when this window shows none (a second window, a
   * reload): its judgments so far from the run's log, then the live ones.
   */
  resume(repoId: string): Promise<void>;
  /** Show a package made elsewhere (a solve pass's context), as a finished inspection. */
  showPackage(input: { repoId: string; runId: string | null; package: ContextPackage; markdown: string; summary: RetrievalSummary }): void;
}

/** The config's budget defaults when the file sets none (the engine's schema defaults). */
const FALLBACK = { contextWindow: 32768, reservedTokens: 4096 };

/** The run this window follows, and how to stop following it. */
let followed: { runId: string; stop: () => void } | null = null;

/** Follow a retrieve run's events into the inspection: judgments, then its end with its result. */
async function follow(runId: string): Promise<void> {
  if (followed?.runId === runId) return;
  followed?.stop();
  const me = { runId, stop: () => {} };
  followed = me;
  const apply = (update: (i: Inspection) => Inspection) => useRetrievalStore.setState((s) => (s.inspection?.runId === runId ? { inspection: update(s.inspection) } : {}));
  try {
    const f = await followRunEvents(runId, (e) => {
      if (e.event === 'retrieval/judgment') apply((i) => inspectionReducers.judgment(i, e.payload));
      else if (e.event === 'run/finished') apply((i) => inspectionReducers.finished(i, e.payload));
    });
    me.stop = f.stop;
    // A run that had ended by the time it was attached to: its result came with the answer.
    if (f.attachment.run.status !== 'running') apply((i) => inspectionReducers.finished({ ...i, runId }, { runId, kind: 'retrieve', status: f.attachment.run.status as 'done', ...(f.attachment.run.error ? { error: f.attachment.run.error } : {}), ...(f.attachment.result ? { result: f.attachment.result as never } : {}) }));
    if (followed !== me) f.stop();
  } catch (error) {
    apply((i) => inspectionReducers.refused(i, toOpError(error)?.message ?? 'The run could not be followed.'));
  }
}

function budgetOf(values: Record<string, unknown> | null): { contextWindow: number; reservedTokens: number } {
  const b = values?.budget as { context_window?: unknown; reserved_tokens?: unknown } | undefined;
  return {
    contextWindow: typeof b?.context_window === 'number' ? b.context_window : FALLBACK.contextWindow,
    reservedTokens: typeof b?.reserved_tokens === 'number' ? b.reserved_tokens : FALLBACK.reservedTokens,
  };
}

/** A typed number, or undefined for an empty field (the engine then takes the config's). */
function tokensOf(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text.trim());
}

/** The Context inspector: the task form and the inspection shown. */
export const useRetrievalStore = create<InspectorState & InspectorActions>()((set, get) => ({
  task: '',
  stages: [...DEFAULT_RETRIEVAL_STAGES],
  budget: { contextWindow: '', reservedTokens: '' },
  defaults: null,
  inspection: null,
  setTask: (task) => set({ task }),
  showPackage: ({ repoId, runId, package: pkg, markdown, summary }) =>
    set({
      task: pkg.task,
      inspection: { taskId: pkg.taskId, runId, repoId, task: pkg.task, status: 'done', judgments: [], result: { package: pkg, summary, markdown, stages: [], verdicts: [] }, error: null },
    }),
  toggleStage: (stage) =>
    set((s) => ({ stages: s.stages.includes(stage) ? s.stages.filter((x) => x !== stage) : RETRIEVAL_STAGE_NAMES.filter((x) => x === stage || s.stages.includes(x)) })),
  setBudget: (patch) => set((s) => ({ budget: { ...s.budget, ...patch } })),
  loadDefaults: async () => {
    try {
      const snapshot = await client().call('config/get', {});
      set({ defaults: budgetOf(snapshot.values) });
    } catch {
      set({ defaults: FALLBACK });
    }
  },
  run: async (repoId) => {
    const { task, stages, budget, inspection: shown } = get();
    if (!task.trim() || shown?.status === 'starting' || shown?.status === 'running') return;
    const inspection = inspectionReducers.start(repoId, task.trim());
    set({ inspection });
    const contextWindow = tokensOf(budget.contextWindow);
    const reservedTokens = tokensOf(budget.reservedTokens);
    try {
      const { run, taskId } = await client().call('retrieval/run', {
        repoId,
        task: task.trim(),
        stages,
        // Either field left empty is the config's [budget].
        ...(contextWindow !== undefined || reservedTokens !== undefined ? { budget: { contextWindow, reservedTokens } } : {}),
      });
      if (get().inspection !== inspection) return;
      set({ inspection: inspectionReducers.started(inspection, run, taskId) });
      // The run's events so far come from its log: none is lost to the race between the answer and the first event.
      await follow(run.runId);
    } catch (error) {
      const message = toOpError(error)?.message ?? 'Cancelled.';
      set((s) => (s.inspection === inspection ? { inspection: inspectionReducers.refused(inspection, message) } : {}));
    }
  },
  resume: async (repoId) => {
    if (get().inspection) return;
    try {
      const running = await client().call('run/list', { includeFinished: false });
      const run = running.find((r): r is RunInfo<'retrieve'> => r.kind === 'retrieve' && r.subject.repoId === repoId);
      if (!run || get().inspection) return;
      set({ task: run.subject.task, inspection: inspectionReducers.attached(run) });
      await follow(run.runId);
    } catch {
      // Nothing to resume: the page shows its form as usual.
    }
  },
  cancel: async () => {
    const runId = get().inspection?.runId;
    if (runId) await client().call('run/cancel', { runId });
  },
}));
