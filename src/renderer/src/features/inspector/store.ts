import { create } from 'zustand';
import { DEFAULT_RETRIEVAL_STAGES, RETRIEVAL_STAGE_NAMES, type ContextPackage, type RetrievalStageName, type RetrievalSummary, type RunFinished } from '../../../../shared/contract';
import { client } from '../../lib/client';
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
  /** Run the task on a repository: a retrieve run whose judgments stream in. */
  run(repoId: string): Promise<void>;
  cancel(): Promise<void>;
  /** The end of a retrieve run (routed by connectStores). */
  runFinished(finished: RunFinished): void;
  /** Follow retrieve/judgment and retrieve/package; returns the unsubscriber. */
  listen(): () => void;
  /** Show a package made elsewhere (a solve pass's context), as a finished inspection. */
  showPackage(input: { repoId: string; runId: string | null; package: ContextPackage; markdown: string; summary: RetrievalSummary }): void;
}

/** The config's budget defaults when the file sets none (the engine's schema defaults). */
const FALLBACK = { contextWindow: 32768, reservedTokens: 4096 };

function newTaskId(): string {
  return `t-${crypto.randomUUID()}`;
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
export const useInspectorStore = create<InspectorState & InspectorActions>()((set, get) => ({
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
    const { task, stages, budget, inspection } = get();
    if (!task.trim() || inspection?.status === 'starting' || inspection?.status === 'running') return;
    const taskId = newTaskId();
    set({ inspection: inspectionReducers.start(taskId, repoId, task.trim()) });
    const contextWindow = tokensOf(budget.contextWindow);
    const reservedTokens = tokensOf(budget.reservedTokens);
    try {
      const { runId } = await client().call('retrieve/run', {
        repoId,
        task: task.trim(),
        taskId,
        stages,
        // Either field left empty is the config's [budget].
        ...(contextWindow !== undefined || reservedTokens !== undefined ? { budget: { contextWindow, reservedTokens } } : {}),
      });
      set((s) => (s.inspection?.taskId === taskId ? { inspection: inspectionReducers.started(s.inspection, runId) } : {}));
    } catch (error) {
      const message = toOpError(error)?.message ?? 'Cancelled.';
      set((s) => (s.inspection?.taskId === taskId ? { inspection: inspectionReducers.refused(s.inspection, message) } : {}));
    }
  },
  cancel: async () => {
    const runId = get().inspection?.runId;
    if (runId) await client().call('run/cancel', { runId });
  },
  runFinished: (finished) => set((s) => (s.inspection ? { inspection: inspectionReducers.finished(s.inspection, finished) } : {})),
  listen: () => {
    const c = client();
    const stops = [
      c.subscribe('retrieve/judgment', (j) => set((s) => (s.inspection ? { inspection: inspectionReducers.judgment(s.inspection, j) } : {}))),
      c.subscribe('retrieve/package', (e) => set((s) => (s.inspection ? { inspection: inspectionReducers.result(s.inspection, e) } : {}))),
    ];
    return () => stops.forEach((stop) => stop());
  },
}));
