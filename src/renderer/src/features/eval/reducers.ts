import type { EvalMethod, EvalReport, EvalTaskResult, RunFinished, RunProgress } from '../../../../shared/contract';

/** The evaluation run the page started and follows. */
export interface EvalRunState {
  runId: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  done: number;
  total: number | null;
  message: string;
  error: string | null;
  /** The report the run produced, once done. */
  reportId: string | null;
}

/** One bar of the recall chart. */
export interface ChartBar {
  k: number;
  method: EvalMethod;
  value: number;
}

/** Pure state transitions and derived data of the Evaluation page. */
export const evalReducers = {
  started(runId: string): EvalRunState {
    return { runId, status: 'running', done: 0, total: null, message: 'starting', error: null, reportId: null };
  },
  /** Progress of the followed run; events of other runs leave it unchanged. */
  progress(run: EvalRunState | null, progress: RunProgress): EvalRunState | null {
    if (!run || progress.runId !== run.runId) return run;
    return { ...run, done: progress.done, total: progress.total ?? null, message: progress.message ?? progress.phase };
  },
  finished(run: EvalRunState | null, finished: RunFinished): EvalRunState | null {
    if (!run || finished.runId !== run.runId) return run;
    const result = finished.result as { reportId?: string } | undefined;
    return { ...run, status: finished.status, error: finished.error?.message ?? null, reportId: result?.reportId ?? null };
  },
};

/** recall@k per method for the chart, grouped by k in the report's order. */
export function chartBars(report: EvalReport): ChartBar[] {
  return report.ks.flatMap((k) => report.methods.map((method) => ({ k, method, value: report.summary[method]?.recallAt[k] ?? 0 })));
}

/** Tasks where `method` put no gold file in its top k, as the misses list shows them. */
export function missedTasks(report: EvalReport, method: EvalMethod, k: number): EvalTaskResult[] {
  return report.tasks.filter((t) => !t.error && (t.results[method]?.recallAt[k] ?? 0) === 0);
}

/** The cut-off the misses list uses: 5 when measured, else the largest k. */
export function missCutoff(report: EvalReport): number {
  return report.ks.includes(5) ? 5 : (report.ks[report.ks.length - 1] ?? 1);
}
