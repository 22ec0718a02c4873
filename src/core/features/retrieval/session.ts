/**
 * The session database of one retrieval task (docs/design.md, Retrieval sessions): the
 * working state a run writes between stages and a refinement re-entry reads back —
 * `stage_outputs`, `stage_progress`, `final_context`, `refinement_request` (plus `task`,
 * `budget` and `stages`, so re-entry needs nothing else). One SQLite file per task id in
 * `<data>/repos/<id>/sessions/`; on close it is archived into the raw DB's `session_archives` as
 * one blob and deleted. A file left by a killed run is removed when the task id starts again, and
 * swept (archived, then removed) by the next retrieval of the repository ({@link sweepAbandonedSessions}).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { migrate, openDatabase, type Db, type Migration } from '../../platform/db/open';

/** Session keys the pipeline writes and reads. */
export type SessionKey = 'stage_outputs' | 'stage_progress' | 'final_context' | 'refinement_request' | 'task' | 'budget' | 'stages' | 'refinement_loops' | 'owner';

const SESSION_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'retrieval state by key',
    up: (db) => db.exec('create table retrieval_state (key text primary key, value_json text not null, updated_at text not null)'),
  },
];

/** One stage's entry in `stage_progress`. */
export interface StageProgressEntry {
  name: string;
  status: 'done' | 'failed' | 'skipped';
  /** 0 for the first retrieval, n for the n-th refinement. */
  loop: number;
  files: number;
  decisions: number;
  ms: number;
  /** The server's exact token counts of the stage's calls, by call stage name. */
  usage?: Record<string, { calls: number; promptTokens: number; completionTokens: number; failed: number }>;
}

const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The open session of one task. Not safe to share between processes: one run owns it. */
export class RetrievalSession {
  private closed = false;

  private constructor(
    private readonly db: Db,
    /** The task id (the file's name). */
    readonly taskId: string,
    /** The session file. */
    readonly file: string,
  ) {}

  /**
   * Create the session of a task in `dir`. A file already there is what a killed run left: it is
   * removed first, so the run starts clean (nothing of a half-done run is ever read back).
   */
  static create(dir: string, taskId: string, runId?: string): RetrievalSession {
    if (!SAFE_ID.test(taskId)) throw new Error(`A task id must be 1-64 letters, digits, _ or - (got "${taskId}").`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${taskId}.sqlite`);
    removeSessionFile(file);
    // Rollback journal: the session is one file, archived as one blob. Not synced: it is scratch
    // state of this process (a kill still leaves each write whole; a file an OS crash damaged is
    // swept like any dead one), and a sync per write cost 3 to 4 ms of each pass of a solve run.
    const db = openDatabase(file, { journal: 'rollback', synchronous: 'off' });
    const session = new RetrievalSession(db, taskId, file);
    // The schema and who holds it in one write (a later sweep archives and removes a session whose process is gone).
    db.transaction(() => {
      migrate(db, SESSION_MIGRATIONS, file);
      session.set('owner', { pid: process.pid, ...(runId ? { runId } : {}), startedAt: new Date().toISOString() });
    })();
    return session;
  }

  /** Write one key (one transaction: a kill leaves the previous value or the new one, never half). */
  set(key: SessionKey, value: unknown): void {
    this.ensureOpen();
    this.db.prepare('insert into retrieval_state (key, value_json, updated_at) values (?, ?, ?) on conflict(key) do update set value_json = excluded.value_json, updated_at = excluded.updated_at').run(key, JSON.stringify(value), new Date().toISOString());
  }

  /** Write several keys in one transaction. */
  setMany(values: Partial<Record<SessionKey, unknown>>): void {
    this.ensureOpen();
    this.db.transaction(() => {
      for (const [k, v] of Object.entries(values)) this.set(k as SessionKey, v);
    })();
  }

  /** Read one key, or undefined. */
  get<T>(key: SessionKey): T | undefined {
    this.ensureOpen();
    const row = this.db.prepare('select value_json from retrieval_state where key = ?').pluck().get(key) as string | undefined;
    return row === undefined ? undefined : (JSON.parse(row) as T);
  }

  /** Keys present. */
  keys(): SessionKey[] {
    this.ensureOpen();
    return this.db.prepare('select key from retrieval_state order by key').pluck().all() as SessionKey[];
  }

  /** Record one stage's output and progress entry together (the runner calls this between stages). */
  recordStage(name: string, output: unknown, entry: StageProgressEntry): void {
    this.ensureOpen();
    this.db.transaction(() => {
      this.set('stage_outputs', { ...(this.get<Record<string, unknown>>('stage_outputs') ?? {}), [name]: output });
      this.set('stage_progress', [...(this.get<StageProgressEntry[]>('stage_progress') ?? []), entry]);
    })();
  }

  /** Whether close() or discard() ran. */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Close the session: archive the file's bytes into the raw DB's `session_archives` under the
   * run id (when a raw DB is given), then delete the file. Idempotent.
   */
  close(archive?: { raw: Db; runId: string }): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
    if (archive) archive.raw.prepare('insert into session_archives (run_id, archived_at, bytes) values (?, ?, ?)').run(archive.runId, new Date().toISOString(), readFileSync(this.file));
    removeSessionFile(this.file);
  }

  private ensureOpen(): void {
    if (this.closed) throw new Error(`The session of task ${this.taskId} is closed.`);
  }
}

/** How old a session file without an owner must be before a sweep takes it for dead. */
const UNOWNED_GRACE_MS = 10 * 60_000;

/** Whether a process with this id is alive on this machine. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Archive (into `raw`, when given) and remove every session file in `dir` whose owning process is
 * gone — what killed runs left — so a folder of sessions never fills with dead ones and nothing
 * of a dead run is read back. Sessions of live processes (this one included) are left alone, and
 * so are other SQLite files of the folder (a solve run's session, kept for its resume); a file that
 * cannot be read is removed. Returns the task ids swept.
 */
export function sweepAbandonedSessions(dir: string, raw?: Db): string[] {
  if (!existsSync(dir)) return [];
  const swept: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.sqlite')) continue;
    const file = join(dir, name);
    let owner: { pid?: number; runId?: string } | undefined;
    let foreign = false;
    try {
      const db = openDatabase(file, { readOnly: true });
      try {
        // Another kind of session shares the folder (a solve run's, kept for its resume): not ours to sweep.
        foreign = !db.prepare("select 1 from sqlite_master where type = 'table' and name = 'retrieval_state'").get() && db.prepare("select count(*) from sqlite_master where type = 'table'").pluck().get() !== 0;
        const row = foreign ? undefined : (db.prepare("select value_json from retrieval_state where key = 'owner'").pluck().get() as string | undefined);
        owner = row ? (JSON.parse(row) as typeof owner) : undefined;
      } finally {
        db.close();
      }
    } catch {
      owner = undefined;
    }
    if (foreign) continue;
    if (owner?.pid !== undefined && isAlive(owner.pid)) continue;
    // A file without an owner yet may be one another process is creating right now: only an old one is dead.
    if (owner?.pid === undefined && Date.now() - statSync(file).mtimeMs < UNOWNED_GRACE_MS) continue;
    try {
      if (raw) raw.prepare('insert into session_archives (run_id, archived_at, bytes) values (?, ?, ?)').run(owner?.runId ?? `abandoned:${name.slice(0, -'.sqlite'.length)}`, new Date().toISOString(), readFileSync(file));
    } finally {
      removeSessionFile(file);
    }
    swept.push(name.slice(0, -'.sqlite'.length));
  }
  return swept;
}

function removeSessionFile(file: string): void {
  for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) rmSync(f, { force: true });
}
