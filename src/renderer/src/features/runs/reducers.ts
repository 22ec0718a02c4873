import { mergeProgressSteps } from '../../../../shared/contract';
import type { RunFinished, RunInfo, RunKind, RunProgress, RunResult } from '../../../../shared/contract';

/** One run as the app knows it: what the engine said at the start, its latest progress, the phases seen, and its result. */
export type RunEntry<K extends RunKind = RunKind> = { [P in K]: RunInfo<P> & { phases: string[]; result?: RunResult<P> } }[K];

/** The runs the app knows, newest first, and progress of runs not seen start yet (kept until they are). */
export interface RunsList {
  runs: RunEntry[];
  early: Record<string, RunProgress>;
}

function withProgress<E extends RunEntry>(entry: E, progress: RunProgress): E {
  const steps = mergeProgressSteps(entry.progress?.steps, progress.steps);
  const phases = entry.phases.includes(progress.phase) ? entry.phases : [...entry.phases, progress.phase];
  return { ...entry, progress: { ...progress, ...(steps ? { steps } : {}) }, phases };
}

/** Pure updates of the run list from pushed events and answers; tested without React. */
export const runReducers = {
  /** A run started (or was listed, or an answer named it): added first; a known run keeps a finished status and its progress. */
  started(list: RunsList, run: RunInfo): RunsList {
    const known = list.runs.find((r) => r.runId === run.runId);
    let entry = { ...run, phases: known?.phases ?? (run.progress ? [run.progress.phase] : []) } as RunEntry;
    if (known) entry = { ...entry, status: known.status !== 'running' ? known.status : run.status, progress: run.progress ?? known.progress, error: run.error ?? known.error, result: known.result, finishedAt: known.finishedAt ?? run.finishedAt } as RunEntry;
    const early = list.early[run.runId];
    const { [run.runId]: _taken, ...rest } = list.early;
    if (early && entry.status === 'running') entry = withProgress(entry, early);
    return { runs: [entry, ...list.runs.filter((r) => r.runId !== run.runId)], early: rest };
  },
  /** Progress: the tree merged into the run's (nodes matched by id), the phase remembered. */
  progress(list: RunsList, progress: RunProgress): RunsList {
    const known = list.runs.find((r) => r.runId === progress.runId);
    if (!known) return { ...list, early: { ...list.early, [progress.runId]: progress } };
    return { ...list, runs: list.runs.map((r) => (r === known ? withProgress(r, progress) : r)) };
  },
  /** The end of a run, with its error or result. */
  finished(list: RunsList, finished: RunFinished): RunsList {
    return {
      ...list,
      runs: list.runs.map((r) =>
        r.runId === finished.runId ? ({ ...r, status: finished.status, error: finished.error, result: finished.result, finishedAt: new Date().toISOString() } as RunEntry) : r,
      ),
    };
  },
};

/** Percentage of a run, when its total is known. */
export function runPercent(run: Pick<RunInfo, 'progress'>): number | null {
  const p = run.progress;
  if (!p || !p.total) return null;
  return Math.max(0, Math.min(100, Math.round((p.done / p.total) * 100)));
}
