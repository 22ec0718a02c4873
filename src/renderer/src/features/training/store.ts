import { create } from 'zustand';
import type { DatasetSample, DatasetSummary, LogOverview, RunInfo } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { useRunsStore } from '../runs/store';

type DataOp = 'load' | 'samples' | 'export' | 'bootstrap';

/** Which examples the sample viewer shows. */
export interface SampleQuery {
  stage: string;
  label: 'yes' | 'no' | null;
  offset: number;
}

interface DataState {
  datasets: DatasetSummary[];
  log: LogOverview | null;
  isLoaded: boolean;
  selectedId: string | null;
  query: SampleQuery;
  samples: { total: number; samples: DatasetSample[] } | null;
  exported: { dir: string; files: string[] } | null;
  /** The bootstrap run the page started (its state is in the runs store). */
  runId: string | null;
  errors: Partial<Record<DataOp, OpError | null>>;
}

interface DataActions {
  load(): Promise<void>;
  select(id: string): Promise<void>;
  setQuery(q: Partial<SampleQuery>): Promise<void>;
  exportTo(dest: string): Promise<void>;
  bootstrap(repoPath: string, commits?: number): Promise<void>;
}

/** The page size of the sample viewer. */
export const SAMPLE_PAGE = 5;

/** Datasets, the log analysis, the dataset on screen and its samples. */
export const useTrainingStore = create<DataState & DataActions>()((set, get) => {
  const fail = (op: DataOp, error: unknown) => set((s) => ({ errors: { ...s.errors, [op]: toOpError(error) } }));
  const ok = (op: DataOp) => set((s) => ({ errors: { ...s.errors, [op]: null } }));
  const fetchSamples = async () => {
    const { selectedId, query } = get();
    if (!selectedId) return;
    try {
      const samples = await client().call('training/samples', { dataset: selectedId, stage: query.stage, offset: query.offset, limit: SAMPLE_PAGE, ...(query.label ? { label: query.label } : {}) });
      if (get().selectedId === selectedId) set({ samples });
      ok('samples');
    } catch (error) {
      fail('samples', error);
    }
  };
  return {
    datasets: [],
    log: null,
    isLoaded: false,
    selectedId: null,
    query: { stage: 'scope', label: null, offset: 0 },
    samples: null,
    exported: null,
    runId: null,
    errors: {},
    load: async () => {
      try {
        const [{ datasets, log }, running] = await Promise.all([client().call('training/overview', {}), client().call('run/list', { includeFinished: false })]);
        // A bootstrap going on since before a reload is followed again.
        const going = running.find((r): r is RunInfo<'bootstrap'> => r.kind === 'bootstrap');
        if (going) useRunsStore.getState().track(going);
        set((s) => ({ datasets, log, isLoaded: true, runId: going?.runId ?? s.runId }));
        ok('load');
        const { selectedId } = get();
        const first = datasets[0];
        if ((!selectedId || !datasets.some((d) => d.id === selectedId)) && first) await get().select(first.id);
        else if (selectedId) await fetchSamples();
      } catch (error) {
        set({ isLoaded: true });
        fail('load', error);
      }
    },
    select: async (id) => {
      const d = get().datasets.find((x) => x.id === id);
      const stage = d && !d.files[get().query.stage] ? (Object.keys(d.files)[0] ?? 'scope') : get().query.stage;
      set({ selectedId: id, query: { stage, label: null, offset: 0 }, samples: null, exported: null });
      await fetchSamples();
    },
    setQuery: async (q) => {
      // Another stage starts unfiltered at its first page; another label at its first page.
      set((s) => ({ query: { ...s.query, ...(q.stage !== undefined && q.stage !== s.query.stage ? { label: null } : {}), ...q, offset: q.offset ?? (q.stage !== undefined || q.label !== undefined ? 0 : s.query.offset) } }));
      await fetchSamples();
    },
    exportTo: async (dest) => {
      const id = get().selectedId;
      if (!id) return;
      try {
        set({ exported: await client().call('training/export', { dataset: id, dest: dest.trim() }) });
        ok('export');
      } catch (error) {
        fail('export', error);
      }
    },
    bootstrap: async (repoPath, commits) => {
      try {
        const { run } = await client().call('training/bootstrap', { repoPath: repoPath.trim(), ...(commits ? { commits } : {}) });
        const runId = run.runId;
        useRunsStore.getState().track(run);
        set({ runId });
        ok('bootstrap');
      } catch (error) {
        fail('bootstrap', error);
      }
    },
  };
});

/** Selectors of the data store. */
export const dataSelectors = {
  datasets: (s: DataState) => s.datasets,
  log: (s: DataState) => s.log,
  isLoaded: (s: DataState) => s.isLoaded,
  selectedId: (s: DataState) => s.selectedId,
  query: (s: DataState) => s.query,
  samples: (s: DataState) => s.samples,
  exported: (s: DataState) => s.exported,
  runId: (s: DataState) => s.runId,
  error: (op: DataOp) => (s: DataState) => s.errors[op] ?? null,
};
