/**
 * Reading a solve run back: its detail for `plans/getRun` (parts, steps, passes, diffs, validation)
 * and `solveRunDiffs` for diff review — per-step and cumulative unified diffs and the commits the
 * run started from (review checks the user's files against the start commit itself: review/apply.ts).
 */
import { AppError } from '../../../shared/contract';
import type { SolveOutcome, SolvePartView, SolveRunDetail } from '../../../shared/contract/plansRuns';
import type { Db } from '../../platform/db/open';
import { effectiveStatus, SolveRecords, type SolveRunRow } from './solveRecords';
import { SESSION_KEYS, SqliteSolveSession, type OrchestratorProgress } from './solveSession';

/** The diffs of a run, for review. */
export interface SolveRunDiffs {
  solveRunId: string;
  /** The user's HEAD when the run started. */
  headCommit: string;
  /** The commit the diffs apply to (HEAD, or the uncommitted changes on it). */
  startCommit: string;
  /** Each succeeded step's diff, in order. */
  steps: Array<{ partId: string | null; stepId: string | null; sequence: number; diff: string }>;
  cumulative: string;
}

function runRow(records: SolveRecords, solveRunId: string): SolveRunRow {
  const row = records.run(solveRunId);
  if (!row) throw new AppError('NOT_FOUND', `No solve run ${solveRunId}; \`cra solve --list\` shows the runs.`);
  return row;
}

/**
 * Per-step and cumulative diffs of a run and the commits it started from. A run still going has
 * the cumulative diff of its last completed step.
 */
export function solveRunDiffs(raw: Db, solveRunId: string, sessionFile?: string): SolveRunDiffs {
  const records = new SolveRecords(raw);
  const row = runRow(records, solveRunId);
  const steps = records
    .passes(solveRunId)
    .filter((p) => (p.type === 'step_implement' || p.type === 'implement') && p.status === 'succeeded' && p.diff)
    .map((p) => ({ partId: p.partId, stepId: p.stepId, sequence: p.sequence, diff: p.diff! }));
  let cumulative = row.cumulative_diff ?? '';
  if (row.status === 'running' && sessionFile && SqliteSolveSession.exists(sessionFile)) {
    const session = SqliteSolveSession.open(sessionFile);
    try {
      cumulative = session.get<string>(SESSION_KEYS.cumulativeDiff) ?? cumulative;
    } finally {
      session.close();
    }
  }
  return { solveRunId, headCommit: row.base_commit, startCommit: row.start_commit, steps, cumulative };
}

/** The run as `plans/getRun` returns it; `isLive` tells a running row of a live process from one left by a killed process. */
export function solveRunDetail(raw: Db, solveRunId: string, isLive: (row: SolveRunRow) => boolean, sessionFile?: string): SolveRunDetail {
  const records = new SolveRecords(raw);
  const row = runRow(records, solveRunId);
  const passes = records.passes(solveRunId);
  let progress = row.progress_json ? (JSON.parse(row.progress_json) as OrchestratorProgress) : undefined;
  let cumulative = row.cumulative_diff ?? '';
  if (sessionFile && SqliteSolveSession.exists(sessionFile)) {
    const session = SqliteSolveSession.open(sessionFile);
    try {
      progress ??= session.get<OrchestratorProgress>(SESSION_KEYS.progress);
      if (!row.cumulative_diff) cumulative = session.get<string>(SESSION_KEYS.cumulativeDiff) ?? '';
    } finally {
      session.close();
    }
  }
  const outcome = row.outcome_json ? (JSON.parse(row.outcome_json) as SolveOutcome) : null;
  const parts: SolvePartView[] = (progress?.parts ?? []).map((p) => ({ id: p.part.id, title: p.part.title, status: p.status, steps: p.steps.map((s) => ({ id: s.step.id, description: s.step.description, status: s.status, ...(s.error ? { error: s.error } : {}) })) }));
  const status = effectiveStatus(row, isLive);
  return { solveRunId, repoId: row.repo_id, task: row.task, mode: row.mode, status, baseCommit: row.base_commit, startedAt: row.started_at, finishedAt: row.finished_at, parts, passes, cumulativeDiff: cumulative, outcome };
}
