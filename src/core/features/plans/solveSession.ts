/**
 * The session of a solve run (docs/design.md, Solve records and session keys; Retrieval sessions): the orchestrator's keys — meta_plan,
 * part_plan:<part>, step_result:<part>:<step>, adjustment:<part>:<after>, orchestrator_progress,
 * cumulative_diff — in a SQLite file of its own, written as each pass ends, so a killed run can be
 * resumed from its last completed step. Behind `SolveSession` so the pipeline's session DB can
 * take its place.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { MetaPlan, MetaPlanPart, PartPlan, PlanStep, SolveNodeStatus } from '../../../shared/contract/plansRuns';
import { openDatabase, type Db, type Migration } from '../../platform/db/open';

/** Key-value storage of one run's session. */
export interface SolveSession {
  get<T>(key: string): T | undefined;
  set(key: string, value: unknown): void;
  /** Several keys in one transaction (all or none written). */
  setMany(entries: ReadonlyArray<readonly [string, unknown]>): void;
  /** Every key with a prefix (`step_result:`), in key order. */
  keys(prefix?: string): string[];
  close(): void;
}

/** One step as the orchestrator tracks it. */
export interface StepState {
  step: PlanStep;
  status: SolveNodeStatus;
  /** The adjustment after it has run (a resumed run runs a missing one first). */
  adjusted: boolean;
  error?: string;
}

/** One part as the orchestrator tracks it. */
export interface PartState {
  part: MetaPlanPart;
  status: SolveNodeStatus;
  plan: PartPlan | null;
  steps: StepState[];
  error?: string;
}

/** `orchestrator_progress`: everything a resumed run needs besides the worktree. */
export interface OrchestratorProgress {
  version: 1;
  mode: 'plan' | 'orchestrated';
  task: string;
  metaPlan: MetaPlan | null;
  /** Parts in dependency order. */
  parts: PartState[];
  /** Set when the plan passes failed before any part could run. */
  error?: string;
}

/** The session keys (docs/design.md, Solve records and session keys). */
export const SESSION_KEYS = {
  metaPlan: 'meta_plan',
  partPlan: (part: string) => `part_plan:${part}`,
  stepResult: (part: string, step: string) => `step_result:${part}:${step}`,
  adjustment: (part: string, after: string) => `adjustment:${part}:${after}`,
  progress: 'orchestrator_progress',
  cumulativeDiff: 'cumulative_diff',
} as const;

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'session keys of a solve run',
    up: (db) => db.exec('create table session_kv (key text primary key, value_json text not null, updated_at text not null)'),
  },
];

/** The session file of a solve run: `<sessions>/solve-<solveRunId>.sqlite`. */
export function solveSessionFile(sessionsDir: string, solveRunId: string): string {
  return join(sessionsDir, `solve-${solveRunId}.sqlite`);
}

/** A session in its own SQLite file. */
export class SqliteSolveSession implements SolveSession {
  private constructor(
    private readonly db: Db,
    /** The file (for archiving and deletion). */
    readonly file: string,
  ) {}

  /** Open (creating) the file. */
  static open(file: string): SqliteSolveSession {
    return new SqliteSolveSession(openDatabase(file, { migrations: MIGRATIONS }), file);
  }

  /** Whether a session file exists (a resumable run). */
  static exists(file: string): boolean {
    return existsSync(file);
  }

  get<T>(key: string): T | undefined {
    const json = this.db.prepare('select value_json from session_kv where key = ?').pluck().get(key) as string | undefined;
    return json === undefined ? undefined : (JSON.parse(json) as T);
  }

  set(key: string, value: unknown): void {
    this.db.prepare('insert or replace into session_kv (key, value_json, updated_at) values (?, ?, ?)').run(key, JSON.stringify(value), new Date().toISOString());
  }

  setMany(entries: ReadonlyArray<readonly [string, unknown]>): void {
    this.db.transaction(() => {
      for (const [key, value] of entries) this.set(key, value);
    })();
  }

  keys(prefix = ''): string[] {
    return this.db.prepare('select key from session_kv where key >= ? and key < ? order by key').pluck().all(prefix, `${prefix}\uffff`) as string[];
  }

  /** Close the file; with `archiveTo`, its bytes go to the raw DB's session_archives and the file is deleted (docs/design.md, Retrieval sessions). */
  close(archiveTo?: { raw: Db; runId: string }): void {
    if (!archiveTo) return void this.db.close();
    const bytes = this.db.serialize();
    this.db.close();
    archiveTo.raw.prepare('insert into session_archives (run_id, archived_at, bytes) values (?, ?, ?)').run(archiveTo.runId, new Date().toISOString(), bytes);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${this.file}${suffix}`, { force: true });
  }
}
