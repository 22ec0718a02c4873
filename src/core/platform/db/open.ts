import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { AppError } from '../../../shared/contract/errors';

/** A better-sqlite3 connection. */
export type Db = Database.Database;

/** One schema step; `version` counts up from 1 and is stored in `PRAGMA user_version`. */
export interface Migration {
  version: number;
  description: string;
  up(db: Db): void;
}

/** How to open a database. */
export interface OpenOptions {
  migrations?: readonly Migration[];
  readOnly?: boolean;
  /** A better-sqlite3 binary built for this runtime (Electron); see HostPorts.sqliteNativeBinding. */
  nativeBinding?: string;
  /** Load sqlite-vec into the connection. */
  withVectors?: boolean;
  /** Journal of a writable file database: `wal` (default) or SQLite's own rollback journal (a lock file: no -wal/-shm files). */
  journal?: 'wal' | 'rollback';
  /**
   * `normal` (default) syncs at each commit (rollback journal) or checkpoint (WAL). `off` leaves
   * writing to the OS: for a scratch file whose loss on a power cut costs nothing (a retrieval
   * session). A killed process still leaves each transaction whole; only an OS crash can lose
   * or damage the file.
   */
  synchronous?: 'normal' | 'off';
}

let defaultNativeBinding: string | undefined;

/** Set once by the engine when the host runs Electron, so every connection loads the right binary. */
export function setDefaultNativeBinding(path: string | undefined): void {
  defaultNativeBinding = path;
}

/** The binary set by `setDefaultNativeBinding`, for a worker thread that opens connections of its own. */
export function defaultNativeBindingPath(): string | undefined {
  return defaultNativeBinding;
}

/** {@link installedBinding}'s answer, looked up once (null: not there). */
let installed: string | null | undefined;

/**
 * better-sqlite3's binary where npm builds or downloads it (build/Release of the package), when it is
 * there; else undefined, and the package looks for it itself (the `bindings` package). Given by path
 * because the CLI's engine bundle carries the package's JavaScript (scripts/build-cli.mjs), and that
 * search would start from the bundle's folder; it also skips the search's ~1 ms.
 */
function installedBinding(): string | undefined {
  if (installed === undefined) {
    try {
      const file = join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
      installed = existsSync(file) ? file : null;
    } catch {
      installed = null;
    }
  }
  return installed ?? undefined;
}

/**
 * Open (creating if needed) a SQLite file in WAL mode with foreign keys on, and bring its schema up
 * to date inside one transaction per migration, so a failed migration leaves the previous version.
 * A database newer than this build is refused rather than damaged.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (file !== ':memory:' && !options.readOnly) mkdirSync(dirname(file), { recursive: true });
  const nativeBinding = options.nativeBinding ?? defaultNativeBinding ?? installedBinding();
  let db: Db;
  try {
    db = new Database(file, { readonly: options.readOnly ?? false, fileMustExist: options.readOnly ?? false, ...(nativeBinding ? { nativeBinding } : {}) });
  } catch (error) {
    throw new AppError('NOT_FOUND', `Cannot open database ${file}: ${(error as Error).message}`, { cause: error });
  }
  db.pragma('busy_timeout = 5000');
  if (!options.readOnly) {
    if (file !== ':memory:' && options.journal !== 'rollback') enableWal(db);
    db.pragma(`synchronous = ${options.synchronous === 'off' ? 'OFF' : 'NORMAL'}`);
  }
  db.pragma('foreign_keys = ON');
  if (options.withVectors) loadVectors(db);
  if (options.migrations && !options.readOnly) migrate(db, options.migrations, file);
  return db;
}

/**
 * Switch to WAL. Changing the journal mode needs the whole file to itself and SQLite answers BUSY at
 * once, without the busy timeout, while another process is creating or migrating the same new file
 * (two `cra index` started together): retry for as long as the busy timeout would have waited.
 */
function enableWal(db: Db): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; ; waited += 25) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || waited >= 5000) throw error;
      Atomics.wait(pause, 0, 0, 25);
    }
  }
}

/** Apply the migrations above the stored version, each in its own immediate transaction (safe when processes race). */
export function migrate(db: Db, migrations: readonly Migration[], label = 'database'): void {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`Migrations of ${label} must be numbered 1..n without gaps (found ${m.version} at ${i + 1}).`);
  });
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = sorted.length;
  if (current > latest) {
    throw new AppError(
      'CONFIG_INVALID',
      `${label} has schema version ${current}, newer than this build knows (${latest}). Update Clean Room, or remove the file to rebuild it.`,
    );
  }
  for (const migration of sorted.slice(current)) {
    // Immediate: the write lock first, then the version again — another process opening the same
    // file at the same moment (two `cra index` started together) may have applied it meanwhile.
    db.transaction(() => {
      if ((db.pragma('user_version', { simple: true }) as number) >= migration.version) return;
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

/** Load the sqlite-vec extension (vec0 virtual tables). */
export function loadVectors(db: Db): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sqliteVec = require('sqlite-vec') as { load(db: Db): void };
  sqliteVec.load(db);
}
