import { create } from 'zustand';
import type { InstalledModel, ModelAssignments, ModelServerStatus, ModelTestResult, RecommendedModel, RequestInput, RunFinished } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { pullReducers, type Pulls } from './reducers';

type ModelsOp = 'list' | 'assign' | 'delete' | 'server';

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
};
