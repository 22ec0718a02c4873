import { create } from 'zustand';
import type { RunFinished } from '../../../../shared/contract';
import { planSchema, type Plan, type PlanArtifact, type PlanSummary } from '../../../../shared/contract/plans';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { useRunsStore } from '../runs/store';

type PlansOp = 'load' | 'open' | 'save' | 'create' | 'validate';

/** The draft under edit: the value (from the form or the JSON view) and what is wrong with it. */
export interface PlanDraftState {
  /** The plan as last edited; `null` while the JSON view holds text that does not parse. */
  plan: Plan | null;
  /** The JSON view's text (kept as typed, so an unfinished edit is not reformatted away). */
  json: string;
  /** Problems: the JSON's, the schema's, then the engine's (unknown files, cycles, order). */
  problems: string[];
  isChecking: boolean;
  isDirty: boolean;
}

interface PlansState {
  repoId: string | null;
  plans: PlanSummary[];
  isLoaded: boolean;
  selectedId: string | null;
  artifact: PlanArtifact | null;
  draft: PlanDraftState | null;
  /** The plan run the page started, while it goes. */
  creating: { runId: string; task: string } | null;
  errors: Partial<Record<PlansOp, OpError | null>>;
}

interface PlansActions {
  load(repoId: string): Promise<void>;
  open(planId: string): Promise<void>;
  /** Apply a form edit to the draft. */
  edit(change: (plan: Plan) => Plan): void;
  /** The JSON view's text changed. */
  editJson(text: string): void;
  save(): Promise<void>;
  create(task: string): Promise<void>;
  /** A plan run ended (routed here by connectStores): list it and open its plan. */
  runFinished(finished: RunFinished<'plan'>): Promise<void>;
}

const pretty = (plan: Plan) => `${JSON.stringify(plan, null, 2)}\n`;
let checkTimer: ReturnType<typeof setTimeout> | undefined;
let checkSeq = 0;

/** Saved plans of the current repository, the one open and its draft under edit. */
export const usePlansStore = create<PlansState & PlansActions>()((set, get) => {
  const fail = (op: PlansOp, error: unknown) => set((s) => ({ errors: { ...s.errors, [op]: toOpError(error) } }));

  /** Live validation: the schema at once, the engine's checks shortly after the last keystroke. */
  const check = (value: unknown, local: string[]) => {
    clearTimeout(checkTimer);
    const seq = ++checkSeq;
    const repoId = get().repoId;
    if (local.length || !repoId) {
      set((s) => (s.draft ? { draft: { ...s.draft, problems: local, isChecking: false } } : {}));
      return;
    }
    set((s) => (s.draft ? { draft: { ...s.draft, isChecking: true } } : {}));
    checkTimer = setTimeout(() => {
      client()
        .call('plans/validate', { repoId, plan: value })
        .then(({ errors }) => {
          if (seq === checkSeq) set((s) => (s.draft ? { draft: { ...s.draft, problems: errors, isChecking: false }, errors: { ...s.errors, validate: null } } : {}));
        })
        .catch((error: unknown) => {
          if (seq !== checkSeq) return;
          set((s) => (s.draft ? { draft: { ...s.draft, isChecking: false } } : {}));
          fail('validate', error);
        });
    }, 250);
  };

  const shapeProblems = (value: unknown): { plan: Plan | null; problems: string[] } => {
    const parsed = planSchema.safeParse(value);
    if (parsed.success) return { plan: parsed.data, problems: [] };
    return { plan: null, problems: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`) };
  };

  return {
    repoId: null,
    plans: [],
    isLoaded: false,
    selectedId: null,
    artifact: null,
    draft: null,
    creating: null,
    errors: {},
    load: async (repoId) => {
      if (get().repoId !== repoId) set({ repoId, plans: [], isLoaded: false, selectedId: null, artifact: null, draft: null });
      try {
        const { plans } = await client().call('plans/list', { repoId });
        if (get().repoId !== repoId) return;
        set((s) => ({ plans, isLoaded: true, errors: { ...s.errors, load: null } }));
        const first = plans[0];
        if (!get().selectedId && first) await get().open(first.id);
      } catch (error) {
        set({ isLoaded: true });
        fail('load', error);
      }
    },
    open: async (planId) => {
      const repoId = get().repoId;
      if (!repoId) return;
      set({ selectedId: planId });
      try {
        const { plan: artifact } = await client().call('plans/get', { repoId, planId });
        if (get().selectedId !== planId) return;
        set((s) => ({ artifact, draft: { plan: artifact.plan, json: pretty(artifact.plan), problems: [], isChecking: false, isDirty: false }, errors: { ...s.errors, open: null, save: null } }));
        check(artifact.plan, []);
      } catch (error) {
        fail('open', error);
      }
    },
    edit: (change) => {
      const current = get().draft?.plan;
      if (!current) return;
      const plan = change(current);
      const { problems } = shapeProblems(plan);
      set((s) => ({ draft: { plan, json: pretty(plan), problems, isChecking: false, isDirty: true }, errors: { ...s.errors, save: null } }));
      check(plan, problems);
    },
    editJson: (text) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        clearTimeout(checkTimer);
        checkSeq++;
        set(() => ({ draft: { plan: null, json: text, problems: [`JSON: ${(error as Error).message}`], isChecking: false, isDirty: true } }));
        return;
      }
      const { plan, problems } = shapeProblems(value);
      set({ draft: { plan, json: text, problems, isChecking: false, isDirty: true } });
      check(value, problems);
    },
    save: async () => {
      const { repoId, artifact, draft } = get();
      if (!repoId || !artifact || !draft?.plan) return;
      try {
        const { plan: saved } = await client().call('plans/save', { repoId, planId: artifact.id, plan: draft.plan });
        const { plans } = await client().call('plans/list', { repoId });
        set((s) => ({ plans, selectedId: saved.id, artifact: saved, draft: { plan: saved.plan, json: pretty(saved.plan), problems: [], isChecking: false, isDirty: false }, errors: { ...s.errors, save: null } }));
      } catch (error) {
        fail('save', error);
      }
    },
    create: async (task) => {
      const repoId = get().repoId;
      if (!repoId) return;
      set((s) => ({ errors: { ...s.errors, create: null } }));
      try {
        const { run } = await client().call('plans/create', { repoId, task, judgeScope: false });
        const runId = run.runId;
        useRunsStore.getState().track(run);
        set({ creating: { runId, task } });
      } catch (error) {
        fail('create', error);
      }
    },
    runFinished: async (finished) => {
      const { creating, repoId } = get();
      if (!creating || creating.runId !== finished.runId) {
        if (repoId) await get().load(repoId);
        return;
      }
      set({ creating: null });
      if (finished.status !== 'done' || !finished.result) {
        const error: OpError = finished.error ?? { code: 'INTERNAL', message: `The plan run ended: ${finished.status}.` };
        set((s) => ({ errors: { ...s.errors, create: finished.status === 'cancelled' ? null : error } }));
        return;
      }
      const { planId } = finished.result;
      set({ selectedId: null });
      if (repoId) await get().load(repoId);
      await get().open(planId);
    },
  };
});

type State = PlansState;

/** Selectors of the plans store. */
export const plansSelectors = {
  plans: (s: State) => s.plans,
  isLoaded: (s: State) => s.isLoaded,
  selectedId: (s: State) => s.selectedId,
  artifact: (s: State) => s.artifact,
  draft: (s: State) => s.draft,
  creating: (s: State) => s.creating,
  error: (op: PlansOp) => (s: State) => s.errors[op] ?? null,
};
