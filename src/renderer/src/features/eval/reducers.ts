import type { EvalMethod, EvalReport, EvalTaskResult, RunInfo } from '../../../../shared/contract';
import type { RunEntry } from '../runs/reducers';

/** The evaluation run the page follows: the one it started, or one found running at load. */
export interface FollowedEval {
  runId: string;
  /** What is being evaluated, as the page shows it while the run goes ("/repo · 50 commits"). */
  what: string;
}

/** The followed run as the page shows it (its state comes from the runs store). */
export interface EvalRunState {
  runId: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  done: number;
  total: number | null;
  message: string;
  error: string | null;
  /** The report the run produced, once done. */
  reportId: string | null;
  what: string;
}

/** One bar of the recall chart. */
export interface ChartBar {
  k: number;
  method: EvalMethod;
  value: number;
}

/** Pure state transitions and derived data of the Evaluation page. */
export const evalReducers = {
  /** The run the page just started, described by what it asked for. */
  started(runId: string, asked: { repoPath: string; commits?: number }): FollowedEval {
    return { runId, what: asked.commits ? `${asked.repoPath} · ${asked.commits} commits` : asked.repoPath };
  },
  /** A running evaluation found at load (started before a reload, or elsewhere): its title says what it is. */
  adopt(run: RunInfo<'eval'>): FollowedEval {
    return { runId: run.runId, what: run.title.replace(/^Evaluate /, '') };
  },
  /** The followed run from its entry in the runs store (null: not known there yet, so starting). */
  view(followed: FollowedEval, run: RunEntry<'eval'> | null): EvalRunState {
    const p = run?.progress;
    return {
      runId: followed.runId,
      status: run?.status ?? 'running',
      done: p?.done ?? 0,
      total: p?.total ?? null,
      message: p?.message ?? p?.phase ?? 'starting',
      error: run?.error?.message ?? null,
      reportId: run?.result?.reportId ?? null,
      what: followed.what,
    };
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

/** One line of the per-task table: a task, where each gold file ranked, and the top of our ranking. */
export interface TaskRow {
  id: string;
  task: string;
  error: string | null;
  /** Gold files with the rank each got from our search and from the reference (null: not ranked). */
  gold: Array<{ path: string; ours: number | null; reference: number | null }>;
  /** Our top results, gold ones marked. */
  top: Array<{ path: string; isGold: boolean }>;
  /** No gold file in our top k. */
  isMiss: boolean;
}

/** The method the table calls "ours": the product search of whatever mode the report ran. */
export function ourMethod(report: EvalReport): EvalMethod {
  return report.methods.find((m) => m !== 'bm25') ?? report.methods[0] ?? 'bm25';
}

/**
 * The per-task table of a report (a failed task is a row with its error). Missing per-method data
 * (a task that failed, a report written by an older version) shows as unranked, never throws.
 */
export function taskRows(report: EvalReport, k: number, top = 5): TaskRow[] {
  const ours = ourMethod(report);
  return report.tasks.map((t) => {
    const mine = t.results[ours];
    const reference = t.results.bm25;
    const gold = t.gold.map((path) => ({ path, ours: mine?.goldRanks?.[path] ?? null, reference: reference?.goldRanks?.[path] ?? null }));
    return {
      id: t.id,
      task: t.task,
      error: t.error ?? null,
      gold,
      top: (mine?.ranked ?? []).slice(0, top).map((path) => ({ path, isGold: t.gold.includes(path) })),
      isMiss: !t.error && !gold.some((g) => g.ours !== null && g.ours <= k),
    };
  });
}
