/**
 * One index run per repository at a time, across processes: two `cra index` of one repository, or
 * the app and the CLI. The lock is SQLite's own lock on a small file beside the index, held by an
 * open `begin immediate` transaction (SQLite's RESERVED lock: one holder at a time) for the whole
 * run. It is an OS-level lock (fcntl on POSIX, LockFileEx on Windows), so it dies with its
 * process: a run killed with `kill -9` leaves no stale lock behind, and no pid file has to be
 * trusted or cleaned. The index itself cannot serve as the lock: a run switches its journal mode,
 * which a waiting connection would trip over.
 */
import { dirname, join } from 'node:path';
import { AppError } from '../../../shared/contract';
import { openDatabase, type Db } from '../../platform/db/open';
import { throwIfAborted } from '../../platform/runtime/runs';

/** How long a run waits for another index of the same repository by default: 10 minutes. */
export const DEFAULT_INDEX_LOCK_WAIT_MS = 10 * 60_000;
/** How often a waiting run tries the lock again. */
const POLL_MS = 250;

/** How to take the index lock. */
export interface IndexLockOptions {
  /** Give up (DB_LOCKED) after this long; default `CRA_INDEX_LOCK_WAIT_S` seconds, else DEFAULT_INDEX_LOCK_WAIT_MS. */
  waitMs?: number;
  /** Stops the wait (CANCELLED). */
  signal?: AbortSignal;
  /** Called once, when the lock is held by another run and this one starts waiting. */
  onWait?: () => void;
}

/** A held index lock; `release` is idempotent. */
export interface IndexLock {
  /** Whether this run had to wait for another one. */
  waited: boolean;
  release(): void;
}

/** The lock file of the index at `curatedFile` (beside it, in the repository's state folder). */
export function indexLockFile(curatedFile: string): string {
  return join(dirname(curatedFile), 'index.lock');
}

/**
 * Take the index lock of `curatedFile`, waiting while another run (in this or another process)
 * holds it. Gives up with DB_LOCKED, saying what to do, after `waitMs`.
 */
export async function acquireIndexLock(curatedFile: string, options: IndexLockOptions = {}): Promise<IndexLock> {
  const waitMs = options.waitMs ?? defaultWaitMs();
  const db = openDatabase(indexLockFile(curatedFile), { journal: 'rollback' });
  try {
    // Fail at once when the lock is taken; the wait below polls instead of blocking the engine thread.
    db.pragma('busy_timeout = 0');
    const started = Date.now();
    let waited = false;
    while (!tryLock(db)) {
      throwIfAborted(options.signal);
      if (!waited) {
        waited = true;
        options.onWait?.();
      }
      if (Date.now() - started >= waitMs) {
        throw new AppError(
          'DB_LOCKED',
          `Another index of this repository is still running after ${formatWait(waitMs)} (a \`cra index\` elsewhere, or the app). ` +
            'Let it finish and run this again, or stop it first (Ctrl+C in its terminal, Cancel in the app).',
          { retryable: true },
        );
      }
      await sleep(POLL_MS, options.signal);
    }
    let released = false;
    return {
      waited,
      release() {
        if (released) return;
        released = true;
        if (db.inTransaction) db.exec('rollback');
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

function tryLock(db: Db): boolean {
  try {
    // RESERVED, not EXCLUSIVE: one holder at a time, while a waiting connection can still open the file.
    db.exec('begin immediate');
    return true;
  } catch (error) {
    if (String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY')) return false;
    throw error;
  }
}

function defaultWaitMs(): number {
  const value = process.env.CRA_INDEX_LOCK_WAIT_S?.trim();
  const seconds = value ? Number(value) : NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : DEFAULT_INDEX_LOCK_WAIT_MS;
}

function formatWait(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
