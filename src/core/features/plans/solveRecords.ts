/**
 * What a solve run leaves in the repository's raw DB (docs/design.md, Solve records and session keys): one `orchestrator_runs` row per
 * run, one `orchestrator_passes` row per pass, each pass linked to its own `task_runs` row (the run
 * id its model calls carry). Rows are appended; a row's end state is written once when it ends.
 */
import type { Db } from '../../platform/db/open';
import { listWorktrees } from '../../platform/git';
import type { PassContext, SolveNodeStatus, SolveOutcome, SolvePassRecord, SolvePassType, SolveRunDetail, SolveRunSummary, ValidationReport } from '../../../shared/contract/plansRuns';
import type { RunBase } from './solveWorkspace';
import { worktreesDir } from '../../platform/layout';

/** The columns of orchestrator_runs this module reads. */
export interface SolveRunRow {
  id: string;
  repo_id: string;
  task: string;
  mode: 'plan' | 'orchestrated';
  task_run_id: string | null;
  base_commit: string;
  start_commit: string;
  base_hashes_json: string;
  input_json: string;
  status: string;
  total_parts: number | null;
  total_steps: number | null;
  outcome_json: string | null;
  cumulative_diff: string | null;
  progress_json: string | null;
  worktree_path: string | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

interface PassRow {
  id: number;
  sequence: number;
  pass_type: SolvePassType;
  part_id: string | null;
  step_id: string | null;
  attempt: number | null;
  status: string | null;
  task_run_id: string;
  output_json: string | null;
  diff: string | null;
  validation_json: string | null;
  context_json: string | null;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

/** A pass being recorded: its sequence and its own task run id. */
export interface PassHandle {
  passId: number;
  sequence: number;
  taskRunId: string;
}

const now = () => new Date().toISOString();

/** Reads and writes the solve rows of one raw DB. */
export class SolveRecords {
  constructor(private readonly db: Db) {}

  /** The run's row at its start. */
  createRun(run: { id: string; repoId: string; task: string; mode: 'plan' | 'orchestrated'; taskRunId: string; base: RunBase; startCommit: string; worktreePath: string; input: unknown }): void {
    this.db
      .prepare(
        `insert into orchestrator_runs (id, task, status, started_at, repo_id, task_run_id, mode, base_commit, start_commit, base_hashes_json, input_json, worktree_path)
         values (@id, @task, 'running', @startedAt, @repoId, @taskRunId, @mode, @baseCommit, @startCommit, @hashes, @input, @worktreePath)`,
      )
      .run({ id: run.id, task: run.task, startedAt: now(), repoId: run.repoId, taskRunId: run.taskRunId, mode: run.mode, baseCommit: run.base.commit, startCommit: run.startCommit, hashes: JSON.stringify(run.base.dirty), input: JSON.stringify(run.input), worktreePath: run.worktreePath });
  }

  /** A resumed run is running again (under a new task run), in a new worktree. */
  reopenRun(id: string, worktreePath: string): void {
    this.db.prepare(`update orchestrator_runs set status = 'running', finished_at = null, error = null, worktree_path = ? where id = ?`).run(worktreePath, id);
  }

  /** Totals once known (after the meta-plan, after each part plan or adjustment). */
  setTotals(id: string, parts: number, steps: number): void {
    this.db.prepare('update orchestrator_runs set total_parts = ?, total_steps = ? where id = ?').run(parts, steps, id);
  }

  /** The run's end: its outcome (or a cancellation / failure before any outcome) and cumulative diff. */
  finishRun(id: string, end: { status: string; outcome?: SolveOutcome; cumulativeDiff: string; progress?: unknown; error?: string }): void {
    this.db
      .prepare('update orchestrator_runs set status = ?, outcome_json = ?, cumulative_diff = ?, progress_json = ?, error = ?, finished_at = ? where id = ?')
      .run(end.status, end.outcome ? JSON.stringify(end.outcome) : null, end.cumulativeDiff, end.progress === undefined ? null : JSON.stringify(end.progress), end.error ?? null, now(), id);
  }

  /** Start a pass: its task_runs row (mode = pass type) and its orchestrator_passes row. */
  startPass(runId: string, pass: { type: SolvePassType; partId?: string; stepId?: string; attempt?: number; title: string }): PassHandle {
    return this.db.transaction(() => {
      const sequence = ((this.db.prepare('select max(sequence) from orchestrator_passes where orchestrator_run_id = ?').pluck().get(runId) as number | null) ?? 0) + 1;
      const taskRunId = `${runId}-p${sequence}`;
      const at = now();
      this.db.prepare(`insert into task_runs (id, mode, task, status, started_at, title) values (?, ?, ?, 'running', ?, ?)`).run(taskRunId, `solve_${pass.type}`, pass.title, at, pass.title.slice(0, 200));
      const info = this.db
        .prepare(`insert into orchestrator_passes (orchestrator_run_id, pass_type, sequence, task_run_id, created_at, part_id, step_id, attempt, status) values (?, ?, ?, ?, ?, ?, ?, ?, 'running')`)
        .run(runId, pass.type, sequence, taskRunId, at, pass.partId ?? null, pass.stepId ?? null, pass.attempt ?? 1);
      return { passId: Number(info.lastInsertRowid), sequence, taskRunId };
    })();
  }

  /** End a pass: status, output, diff and validation on its row; the task run's end state. */
  finishPass(handle: PassHandle, end: { status: SolveNodeStatus; output?: unknown; diff?: string; validation?: ValidationReport; context?: PassContext; error?: string }): void {
    const at = now();
    this.db.transaction(() => {
      this.db
        .prepare('update orchestrator_passes set status = ?, output_json = ?, diff = ?, validation_json = ?, context_json = ?, error = ?, finished_at = ? where id = ?')
        .run(end.status, end.output === undefined ? null : JSON.stringify(end.output), end.diff ?? null, end.validation ? JSON.stringify(end.validation) : null, end.context ? JSON.stringify(end.context) : null, end.error ?? null, at, handle.passId);
      const runStatus = end.status === 'succeeded' ? 'done' : end.status === 'skipped' ? 'cancelled' : 'failed';
      this.db.prepare('update task_runs set status = ?, success = ?, finished_at = ?, error = ? where id = ?').run(runStatus, end.status === 'succeeded' ? 1 : 0, at, end.error ?? null, handle.taskRunId);
    })();
  }

  /** End a pass only when it is still running (a cancellation's clean-up after the pass may have ended). */
  finishPassIfRunning(handle: PassHandle, end: Parameters<SolveRecords['finishPass']>[1]): void {
    const status = this.db.prepare('select status from orchestrator_passes where id = ?').pluck().get(handle.passId);
    if (status === 'running') this.finishPass(handle, end);
  }

  /** Passes left running by a process that died: marked failed (the resumed run starts them again). */
  closeStalePasses(runId: string): number {
    const stale = this.db.prepare(`select id, task_run_id from orchestrator_passes where orchestrator_run_id = ? and status = 'running'`).all(runId) as Array<{ id: number; task_run_id: string }>;
    for (const p of stale) this.finishPass({ passId: p.id, sequence: 0, taskRunId: p.task_run_id }, { status: 'failed', error: 'interrupted: the process running it stopped' });
    return stale.length;
  }

  /** One run's row; undefined when there is none. */
  run(id: string): SolveRunRow | undefined {
    return this.db.prepare('select * from orchestrator_runs where id = ?').get(id) as SolveRunRow | undefined;
  }

  /** The run's passes in order. */
  passes(id: string): SolvePassRecord[] {
    const rows = this.db.prepare('select * from orchestrator_passes where orchestrator_run_id = ? order by sequence').all(id) as PassRow[];
    return rows.map((r) => ({
      sequence: r.sequence,
      type: r.pass_type,
      partId: r.part_id,
      stepId: r.step_id,
      attempt: r.attempt ?? 1,
      status: (r.status ?? 'running') as SolveNodeStatus,
      taskRunId: r.task_run_id,
      error: r.error,
      output: r.output_json ? (JSON.parse(r.output_json) as unknown) : null,
      diff: r.diff,
      validation: r.validation_json ? (JSON.parse(r.validation_json) as ValidationReport) : null,
      context: r.context_json ? (JSON.parse(r.context_json) as PassContext) : null,
      startedAt: r.created_at,
      finishedAt: r.finished_at,
    }));
  }

  /** The repository's runs, newest first; a `running` row whose worktree has no live owner is `interrupted` (`isLive`). */
  list(repoId: string, isLive: (row: SolveRunRow) => boolean, limit = 200): SolveRunSummary[] {
    const rows = this.db.prepare('select * from orchestrator_runs where repo_id = ? order by started_at desc, id desc limit ?').all(repoId, limit) as SolveRunRow[];
    return rows.map((r) => ({ solveRunId: r.id, task: r.task, mode: r.mode, status: effectiveStatus(r, isLive), totalParts: r.total_parts, totalSteps: r.total_steps, startedAt: r.started_at, finishedAt: r.finished_at }));
  }
}

/** A run's status as shown: `running` only while a live process holds its worktree, else `interrupted`. */
export function effectiveStatus(row: SolveRunRow, isLive: (row: SolveRunRow) => boolean): SolveRunDetail['status'] {
  return (row.status === 'running' && !isLive(row) ? 'interrupted' : row.status) as SolveRunDetail['status'];
}

/** Whether the process that made the run's worktree is alive (its owner marker; see core/git worktrees). */
export function worktreeIsLive(dataDir: string, row: SolveRunRow): boolean {
  if (!row.worktree_path) return false;
  return listWorktrees(worktreesDir(dataDir)).some((w) => w.path === row.worktree_path && w.alive);
}
