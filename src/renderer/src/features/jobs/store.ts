import { create } from 'zustand';
import type { AppInfo, RunInfo } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { jobReducers } from './reducers';

interface JobsState {
  jobs: RunInfo[];
  info: AppInfo | null;
  engine: 'connecting' | 'ok' | 'error';
  error: OpError | null;
}

interface JobsActions {
  load(): Promise<void>;
  cancel(runId: string): Promise<void>;
  connect(): () => void;
}

/** The engine's state and the background jobs shown in the status bar. */
export const useJobsStore = create<JobsState & JobsActions>()((set) => ({
  jobs: [],
  info: null,
  engine: 'connecting',
  error: null,
  load: async () => {
    try {
      const [info, jobs] = await Promise.all([client().call('app/info', {}), client().call('run/list', { includeFinished: true })]);
      set({ info, jobs, engine: 'ok', error: null });
    } catch (error) {
      set({ engine: 'error', error: toOpError(error) });
    }
  },
  cancel: async (runId) => {
    try {
      await client().call('run/cancel', { runId });
    } catch (error) {
      set({ error: toOpError(error) });
    }
  },
  connect: () => {
    const c = client();
    const offs = [
      c.subscribe('run/started', (run) => set((s) => ({ jobs: jobReducers.started(s.jobs, run) }))),
      c.subscribe('run/progress', (p) => set((s) => ({ jobs: jobReducers.progress(s.jobs, p) }))),
      c.subscribe('run/finished', (f) => set((s) => ({ jobs: jobReducers.finished(s.jobs, f) }))),
    ];
    return () => offs.forEach((off) => off());
  },
}));

/** Selectors of the jobs store. */
export const jobsSelectors = {
  running: (s: JobsState) => s.jobs.filter((j) => j.status === 'running'),
  all: (s: JobsState) => s.jobs,
  engine: (s: JobsState) => s.engine,
  info: (s: JobsState) => s.info,
};
