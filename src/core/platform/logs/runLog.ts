import { existsSync } from 'node:fs';
import type { RunInfo, RunRecord, RunStatus } from '../../../shared/contract';
import { runRepoId } from '../../../shared/contract';
import type { Db } from '../db/open';
import { openRawDatabase } from '../db/raw';
import type { CallLogger, ModelCallRecord } from '../llm/types';
import type { RunJournal } from '../runtime/runs';
import { RawCallLog } from './callLog';
import { repoPaths } from '../layout';

/** Where a run's rows go: a repository's raw DB, or null for the data folder's. */
type Target = { repoId: string; file: string } | null;

/** Results larger than this are recorded as a note of their size (an index's skipped list can be long). */
const RESULT_JSON_MAX = 256 * 1024;

interface TaskRunRow {
  id: string;
  mode: string;
  title: string | null;
  subject_json: string | null;
  status: string;
  started_at: string;
  finished_at: string | null;
  error_code: string | null;
  error: string | null;
}

/**
 * Records runs in a raw database's `task_runs`: a row when a run starts, its end state (status,
 * success, finished_at, error code and message, result) when it ends. A run of a repository (its
 * subject names one) goes to that repository's raw DB, as its model calls do; any other run goes to
 * the data folder's raw.sqlite. So `model_calls.run_id` joins `task_runs.id` within one file.
 */
export class RawRunJournal implements RunJournal {
  /** The DB each running run's row is in (null: the user-level DB); forgotten at the end. */
  private readonly files = new Map<string, Target>();

  /**
   * `repoDb`: a repository's shared raw connection (the engine's repository handles); where it
   * gives none (no handles, a repository not registered, an engine shutting down) the write opens
   * the file and closes it.
   */
  constructor(
    private readonly dataDir: string,
    private readonly userDb: () => Db,
    private readonly repoDb?: (repoId: string) => Db | undefined,
  ) {}

  started(run: RunInfo): void {
    const file = this.fileOf(run);
    this.files.set(run.runId, file);
    this.write(file, (db) =>
      db
        .prepare(
          `insert or replace into task_runs (id, mode, title, subject_json, repo_path, status, started_at)
           values (@id, @mode, @title, @subject, @repoPath, 'running', @startedAt)`,
        )
        .run({
          id: run.runId,
          mode: run.kind,
          title: run.title,
          subject: JSON.stringify(run.subject),
          repoPath: 'repoPath' in run.subject ? run.subject.repoPath : null,
          startedAt: run.startedAt,
        }),
    );
  }

  finished(run: RunInfo, result: unknown): void {
    const file = this.files.has(run.runId) ? (this.files.get(run.runId) ?? null) : this.fileOf(run);
    this.files.delete(run.runId);
    // A repository removed while its run went on: its folder is gone, and must not come back.
    if (file !== null && !existsSync(file.file)) return;
    this.write(file, (db) =>
      db
        .prepare(
          `update task_runs set status = @status, success = @success, finished_at = @finishedAt, error_code = @errorCode,
             error = @error, result_json = @result where id = @id`,
        )
        .run({
          id: run.runId,
          status: run.status,
          success: run.status === 'done' ? 1 : 0,
          finishedAt: run.finishedAt ?? new Date().toISOString(),
          errorCode: run.error?.code ?? null,
          error: run.error?.message ?? null,
          result: resultJson(result),
        }),
    );
  }

  callLog(run: RunInfo): CallLogger {
    const file = this.files.has(run.runId) ? (this.files.get(run.runId) ?? null) : this.fileOf(run);
    return { append: (record: ModelCallRecord) => this.write(file, (db) => new RawCallLog(db).append(record)) };
  }

  /** The repository's raw DB when the run has a repository whose folder exists, else null (user-level). */
  private fileOf(run: RunInfo): Target {
    const repoId = runRepoId(run);
    if (!repoId) return null;
    const paths = repoPaths(this.dataDir, repoId);
    return existsSync(paths.dir) ? { repoId, file: paths.raw } : null;
  }

  /** Run `fn` on the user-level DB (kept open), on the repository's shared connection, or on its file opened for the write. */
  private write<T>(target: Target, fn: (db: Db) => T): T {
    if (target === null) return fn(this.userDb());
    const shared = this.repoDb?.(target.repoId);
    if (shared) return fn(shared);
    const db = openRawDatabase(target.file);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }
}

function resultJson(result: unknown): string | null {
  if (result === undefined) return null;
  const json = JSON.stringify(result);
  if (json === undefined) return null;
  return json.length <= RESULT_JSON_MAX ? json : JSON.stringify({ omitted: `result of ${json.length} characters` });
}

/** One run as a raw DB recorded it, or undefined when it is not there (another DB, an older engine). */
export function getRunRecord(db: Db, runId: string): RunRecord | undefined {
  let row: TaskRunRow | undefined;
  try {
    row = db.prepare('select id, mode, title, subject_json, status, started_at, finished_at, error_code, error from task_runs where id = ?').get(runId) as TaskRunRow | undefined;
  } catch (error) {
    // A repository's raw DB opened read-only by the logs before this build migrated it (schema 1).
    if (/no such column/.test((error as Error).message)) return undefined;
    throw error;
  }
  if (!row) return undefined;
  return {
    runId: row.id,
    kind: row.mode,
    title: row.title,
    subject: parseObject(row.subject_json),
    status: row.status as RunStatus,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    error: row.error || row.error_code ? { code: row.error_code ?? 'INTERNAL', message: row.error ?? '' } : null,
  };
}

function parseObject(json: string | null): Record<string, unknown> | null {
  if (!json) return null;
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
