import { create } from 'zustand';
import type { InstalledModel, ModelAssignments, ModelCheckResult, ModelSetupPlan, ModelServerStatus, ModelTestResult, RecommendedModel, RequestInput, RunFinished } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { pullReducers, type Pulls } from './reducers';

type ModelsOp = 'list' | 'assign' | 'delete' | 'server' | 'setup' | 'check';

interface ModelsState {
  status: ModelServerStatus | null;
  installed: InstalledModel[];
  isLoaded: boolean;
  recommended: RecommendedModel[];
  totalMemoryBytes: number;
  /** Memory free when the recommendations were fetched (null when the engine did not say). */
  freeMemoryBytes: number | null;
  isAssigning: boolean;
  assignments: ModelAssignments | null;
  pulls: Pulls;
  tests: Record<string, { isRunning: boolean; result: ModelTestResult | null; error: OpError | null }>;
  errors: Partial<Record<ModelsOp, OpError | null>>;
  /** What is here and the one-step proposal (null: not read yet). */
  setupPlan: ModelSetupPlan | null;
  /** The setup run in progress or last started. */
  setupRunId: string | null;
  /** The check run in progress or last started, and the stored results of the current repository. */
  checkRunId: string | null;
  checks: ModelCheckResult[];
}

interface ModelsActions {
  refresh(): Promise<void>;
  checkStatus(): Promise<void>;
  startServer(): Promise<void>;
  pull(name: string): Promise<void>;
  cancelPull(name: string): Promise<void>;
  remove(name: string): Promise<void>;
  /** Save every edited row of the assignment table in one write. */
  assignStages(changes: RequestInput<'models/assignStages'>['changes']): Promise<void>;
  test(model: string): Promise<void>;
  /** A pull ended (connectStores routes every pull's end here): its row says so, and a finished one is listed. */
  pullFinished(finished: RunFinished<'pull'>): void;
  /** Read the setup proposal (and which stages lack a working model). */
  loadSetupPlan(): Promise<void>;
  /** Download and assign the proposal; `setupFinished` hears the end. */
  setup(): Promise<void>;
  setupFinished(finished: RunFinished<'setup'>): void;
  /** Check the assigned models on a repository; `checkFinished` hears the end. */
  check(repoPath: string): Promise<void>;
  checkFinished(finished: RunFinished<'model-check'>): void;
  loadChecks(repoPath: string): Promise<void>;
  /** Follow the server status and pull byte counts; returns the unsubscribe function. */
  connect(): () => void;
}

type Store = ModelsState & ModelsActions;

/** The model server, installed and recommended models, pulls and stage assignments. */
export const useModelsStore = create<Store>()((set, get) => {
  const fail = (op: ModelsOp, error: unknown) => set((s) => ({ errors: { ...s.errors, [op]: toOpError(error) } }));
  const ok = (op: ModelsOp) => set((s) => ({ errors: { ...s.errors, [op]: null } }));
  return {
    status: null,
    installed: [],
    isLoaded: false,
    recommended: [],
    totalMemoryBytes: 0,
    freeMemoryBytes: null,
    isAssigning: false,
    assignments: null,
    pulls: {},
    tests: {},
    errors: {},
    setupPlan: null,
    setupRunId: null,
    checkRunId: null,
    checks: [],
    loadSetupPlan: async () => {
      try {
        set({ setupPlan: await client().call('models/setupPlan', {}) });
        ok('setup');
      } catch (error) {
        fail('setup', error);
      }
    },
    setup: async () => {
      try {
        const { runId } = await client().call('models/setup', {});
        set({ setupRunId: runId });
        ok('setup');
      } catch (error) {
        fail('setup', error);
      }
    },
    setupFinished: (finished) => {
      if (finished.runId !== get().setupRunId) return;
      if (finished.status === 'failed' && finished.error) fail('setup', finished.error);
      void get().refresh();
      void get().loadSetupPlan();
    },
    check: async (repoPath) => {
      try {
        const { runId } = await client().call('models/check', { repoPath, n: 40 });
        set({ checkRunId: runId });
        ok('check');
      } catch (error) {
        fail('check', error);
      }
    },
    checkFinished: (finished) => {
      if (finished.runId !== get().checkRunId) return;
      if (finished.status === 'failed' && finished.error) fail('check', finished.error);
      if (finished.status === 'done' && finished.result) {
        const fresh = finished.result.results;
        set((s) => ({ checks: [...fresh, ...s.checks.filter((c) => !fresh.some((f) => f.stage === c.stage && f.model === c.model))] }));
      }
    },
    loadChecks: async (repoPath) => {
      try {
        set({ checks: (await client().call('models/checks', { repoPath })).results });
      } catch (error) {
        fail('check', error);
      }
    },
    refresh: async () => {
      const c = client();
      const [list, recommended, assignments] = await Promise.allSettled([c.call('models/list', {}), c.call('models/recommended', {}), c.call('models/assignments', {})]);
      if (list.status === 'fulfilled') {
        set({ installed: list.value.models });
        ok('list');
      } else {
        set({ installed: [] });
        fail('list', list.reason);
      }
      if (recommended.status === 'fulfilled') set({ recommended: recommended.value.models, totalMemoryBytes: recommended.value.totalMemoryBytes, freeMemoryBytes: recommended.value.freeMemoryBytes ?? null });
      if (assignments.status === 'fulfilled') set({ assignments: assignments.value });
      else fail('assign', assignments.reason);
      set({ isLoaded: true });
      void get().checkStatus();
    },
    checkStatus: async () => {
      try {
        set({ status: await client().call('models/status', {}) });
      } catch (error) {
        fail('server', error);
      }
    },
    startServer: async () => {
      try {
        set({ status: await client().call('models/startServer', {}) });
        await get().refresh();
      } catch (error) {
        fail('server', error);
      }
    },
    pull: async (name) => {
      try {
        const { runId } = await client().call('models/pull', { name });
        set((s) => ({ pulls: pullReducers.started(s.pulls, name, runId) }));
      } catch (error) {
        set((s) => ({ pulls: pullReducers.failedToStart(s.pulls, name, toOpError(error) ?? { code: 'CANCELLED', message: 'Failed' }) }));
      }
    },
    cancelPull: async (name) => {
      const runId = get().pulls[name]?.runId;
      if (runId) await client().call('run/cancel', { runId });
    },
    remove: async (name) => {
      try {
        await client().call('models/delete', { name });
        ok('delete');
        set((s) => ({ pulls: pullReducers.cleared(s.pulls, name) }));
        await get().refresh();
      } catch (error) {
        fail('delete', error);
      }
    },
    assignStages: async (changes) => {
      set({ isAssigning: true });
      try {
        set({ assignments: await client().call('models/assignStages', { changes }), isAssigning: false });
        ok('assign');
        // Whether a model fits beside the others depends on what the stages now use.
        const rec = await client().call('models/recommended', {});
        set({ recommended: rec.models, totalMemoryBytes: rec.totalMemoryBytes, freeMemoryBytes: rec.freeMemoryBytes ?? null });
      } catch (error) {
        set({ isAssigning: false });
        fail('assign', error);
      }
    },
    test: async (model) => {
      set((s) => ({ tests: { ...s.tests, [model]: { isRunning: true, result: null, error: null } } }));
      try {
        const result = await client().call('models/test', { model, prompt: 'Say hello in five words.' });
        set((s) => ({ tests: { ...s.tests, [model]: { isRunning: false, result, error: null } } }));
      } catch (error) {
        set((s) => ({ tests: { ...s.tests, [model]: { isRunning: false, result: null, error: toOpError(error) } } }));
      }
    },
    pullFinished: (finished) => {
      set((s) => ({ pulls: pullReducers.finished(s.pulls, finished) }));
      if (finished.status === 'done') void get().refresh();
    },
    connect: () => {
      const c = client();
      const offs = [
        c.subscribe('models/serverStatus', (status) => set({ status })),
        c.subscribe('models/pullProgress', (p) => set((s) => ({ pulls: pullReducers.progress(s.pulls, p) }))),
      ];
      return () => offs.forEach((off) => off());
    },
  };
});

/** Selectors of the models store. */
export const modelsSelectors = {
  status: (s: ModelsState) => s.status,
  installed: (s: ModelsState) => s.installed,
  recommended: (s: ModelsState) => s.recommended,
  assignments: (s: ModelsState) => s.assignments,
  pulls: (s: ModelsState) => s.pulls,
  tests: (s: ModelsState) => s.tests,
  errors: (s: ModelsState) => s.errors,
  isLoaded: (s: ModelsState) => s.isLoaded,
  totalMemoryBytes: (s: ModelsState) => s.totalMemoryBytes,
  freeMemoryBytes: (s: ModelsState) => s.freeMemoryBytes,
  setupPlan: (s: ModelsState) => s.setupPlan,
  checks: (s: ModelsState) => s.checks,
};
