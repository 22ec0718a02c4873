import type { RunFinished, RunInfo, RunProgress } from '../../../../shared/contract';

/** Pure updates of the job list from pushed events; tested without React. */
export const jobReducers = {
  started(jobs: RunInfo[], run: RunInfo): RunInfo[] {
    return [run, ...jobs.filter((j) => j.runId !== run.runId)];
  },
  progress(jobs: RunInfo[], progress: RunProgress): RunInfo[] {
    const known = jobs.some((j) => j.runId === progress.runId);
    if (!known) {
      const run: RunInfo = { runId: progress.runId, kind: progress.kind, title: progress.kind, status: 'running', startedAt: new Date().toISOString(), progress };
      return [run, ...jobs];
    }
    return jobs.map((j) => (j.runId === progress.runId ? { ...j, progress } : j));
  },
  finished(jobs: RunInfo[], finished: RunFinished): RunInfo[] {
    return jobs.map((j) =>
      j.runId === finished.runId ? { ...j, status: finished.status, error: finished.error, finishedAt: new Date().toISOString() } : j,
    );
  },
};

/** Percentage of a job, when its total is known. */
export function jobPercent(job: RunInfo): number | null {
  const p = job.progress;
  if (!p || !p.total) return null;
  return Math.max(0, Math.min(100, Math.round((p.done / p.total) * 100)));
}
