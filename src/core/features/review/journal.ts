/**
 * How review changes the user's files all or nothing, even when the process is killed half-way.
 * Before the first file is replaced, a journal in the repository's data folder records every
 * file's bytes and mode before and after (base64) and the name of the one temporary file it may
 * leave beside each; each file is then written to that temporary file and renamed over its path.
 * When every file is in place, the journal becomes the undo record and is removed. A journal found
 * later (a killed apply) is finished when every file already holds what it was to hold, and
 * rolled back otherwise; either way its temporary files are removed. An undo goes the same way.
 */
import { nodeCrypto } from '../../platform/nodeModules';
import { closeSync, constants, existsSync, fchmodSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../../shared/contract';
import { confinePath } from '../../platform/fs/confine';
import { reviewFiles } from '../../platform/layout';

/** Largest file review reads from the working tree. */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** What the run's review has already written to a file: sha256 of the bytes and the hunks they hold. */
const ledgerEntry = z.object({ sha256: z.string(), accepted: z.array(z.string()) });
export type LedgerEntry = z.infer<typeof ledgerEntry>;

/** One file of an apply (or undo): its bytes (base64; null: absent) and mode before and after. */
const journalFile = z.object({
  path: z.string(),
  previous: z.string().nullable(),
  previousMode: z.number().nullable(),
  written: z.string().nullable(),
  writtenMode: z.number().nullable(),
  /** The run's hunks the written bytes hold, and the ledger entry before this apply. */
  accepted: z.array(z.string()),
  ledgerBefore: ledgerEntry.nullable(),
});
export type JournalFile = z.infer<typeof journalFile>;

const journal = z.object({ version: z.literal(2), id: z.string(), kind: z.enum(['apply', 'undo']), runId: z.string(), appliedAt: z.string(), files: z.array(journalFile) });
export type Journal = z.infer<typeof journal>;

/** An undo record of the first format (text contents): read so that its apply can still be undone. */
const legacyUndo = z.object({ runId: z.string(), appliedAt: z.string(), files: z.array(z.object({ path: z.string(), previous: z.string().nullable(), written: z.string().nullable() })) });

/** The files of a repository's review state in its data folder. */
export interface ReviewState {
  /** `<data>/review/undo.json`: the last apply. */
  undoFile: string;
}
const journalFileOf = (state: ReviewState) => reviewFiles(dirname(state.undoFile)).journal;
const lockFileOf = (state: ReviewState) => reviewFiles(dirname(state.undoFile)).lock;

/** Whether an apply or undo left its journal (a killed process, or one still writing). */
export const hasJournal = (state: ReviewState): boolean => existsSync(journalFileOf(state));

/** Whether the process that wrote a lock is still running (on this machine; another host's counts as running). */
function holderAlive(holder: { pid?: unknown; host?: unknown }): boolean {
  if (typeof holder.pid !== 'number') return false;
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Run `body` holding the repository's apply lock (a file created exclusively in its review
 * folder, naming this process): one apply, undo or recovery at a time, across processes (the app
 * and the CLI). A lock left by a process that is gone is taken over; one held by a running process
 * is refused with CONFLICT, and nothing is read or written.
 */
export function withApplyLock<T>(state: ReviewState, body: () => T): T {
  const file = lockFileOf(state);
  mkdirSync(dirname(file), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname() }));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      let holder: { pid?: unknown; host?: unknown } = {};
      try {
        holder = JSON.parse(readFileSync(file, 'utf8')) as typeof holder;
      } catch {
        // Unreadable: its writer died between creating and writing it.
      }
      if (holderAlive(holder)) throw new AppError('CONFLICT', `Another Clean Room process (pid ${String(holder.pid)}) is applying or undoing a change in this repository; try again when it has finished.`);
      rmSync(file, { force: true });
    }
  }
  try {
    return body();
  } finally {
    rmSync(file, { force: true });
  }
}
const ledgerFileOf = (state: ReviewState) => reviewFiles(dirname(state.undoFile)).ledger;

/** A file's bytes and permission bits in the working tree (null: absent); a link or a folder is refused. */
export function readCurrent(repo: string, path: string): { bytes: Buffer | null; mode: number | null } {
  const confined = confinePath(repo, path, { allowMissing: true, gitPath: true });
  if (!confined.exists) return { bytes: null, mode: null };
  const stat = lstatSync(confined.absolute);
  if (!stat.isFile()) throw new AppError('VALIDATION', `${path} is not a regular file in the working tree; review does not write through it.`);
  if (stat.size > MAX_FILE_BYTES) throw new AppError('VALIDATION', `${path} is larger than ${MAX_FILE_BYTES} bytes; review does not write it.`);
  return { bytes: readFileSync(confined.absolute), mode: stat.mode & 0o7777 };
}

export const encode = (bytes: Buffer | null): string | null => (bytes === null ? null : bytes.toString('base64'));
export const decode = (text: string | null): Buffer | null => (text === null ? null : Buffer.from(text, 'base64'));
export const sha256 = (bytes: Buffer): string => nodeCrypto().createHash('sha256').update(bytes).digest('hex');

/** Write a small state file whole (temporary file, fsync, rename), in the data folder. */
function writeState(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${nodeCrypto().randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, `${JSON.stringify(value)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}

function readState(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('INTERNAL', `${file} is not readable JSON; delete it to go on.`);
  }
}

/** The last apply's record, or null when there is none to undo. */
export function readUndoRecord(state: ReviewState): Journal | null {
  const value = readState(state.undoFile);
  if (value === undefined) return null;
  const parsed = journal.safeParse(value);
  if (parsed.success) return parsed.data;
  const legacy = legacyUndo.safeParse(value);
  if (!legacy.success) throw new AppError('INTERNAL', `The undo record ${state.undoFile} is not readable (${parsed.error.issues[0]?.message}); delete it to go on.`);
  const text = (t: string | null) => (t === null ? null : Buffer.from(t, 'utf8').toString('base64'));
  const files = legacy.data.files.map((f) => ({ path: f.path, previous: text(f.previous), previousMode: null, written: text(f.written), writtenMode: null, accepted: [], ledgerBefore: null }));
  return { version: 2, id: 'legacy', kind: 'apply', runId: legacy.data.runId, appliedAt: legacy.data.appliedAt, files };
}

/** What the review of each run has written so far, per run and path. */
type Ledger = Record<string, Record<string, LedgerEntry>>;

export function readLedger(state: ReviewState): Ledger {
  const parsed = z.record(z.string(), z.record(z.string(), ledgerEntry)).safeParse(readState(ledgerFileOf(state)) ?? {});
  return parsed.success ? parsed.data : {};
}

/** The temporary file a journal may leave beside `absolute`. */
const tempOf = (absolute: string, id: string) => `${absolute}.cra-${id}.tmp`;

/** Put `bytes` (null: remove) at `path` with `mode`, through the journal's temporary file and a rename. */
function replaceFile(repo: string, id: string, path: string, bytes: Buffer | null, mode: number | null): void {
  const confined = confinePath(repo, path, { allowMissing: true, gitPath: true });
  if (bytes === null) {
    rmSync(confined.absolute, { force: true });
    return;
  }
  mkdirSync(dirname(confined.absolute), { recursive: true });
  const temp = tempOf(confined.absolute, id);
  rmSync(temp, { force: true }); // one a killed attempt of this journal left
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    // No fsync: a file whose bytes did not reach the disk does not hold what the journal says it
    // was to hold, so the journal (synced) rolls the apply back.
    writeSync(fd, bytes);
    fchmodSync(fd, mode ?? 0o644);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, confined.absolute);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Remove the journal's temporary files (those still there). */
function removeTemps(repo: string, entry: Journal): void {
  for (const file of entry.files) {
    try {
      rmSync(tempOf(confinePath(repo, file.path, { allowMissing: true, gitPath: true }).absolute, entry.id), { force: true });
    } catch {
      // A path no longer confinable has no temporary file of ours.
    }
  }
}

const holds = (repo: string, path: string, bytes: string | null): boolean => {
  const now = readCurrent(repo, path).bytes;
  return bytes === null ? now === null : now !== null && now.equals(decode(bytes)!);
};

/** The journal's end: the undo record and the ledger say what is now in place; the journal goes. */
function commit(state: ReviewState, entry: Journal): void {
  const ledger = readLedger(state);
  const run = (ledger[entry.runId] ??= {});
  for (const file of entry.files) {
    const now = entry.kind === 'apply' ? (file.written === null ? null : { sha256: sha256(decode(file.written)!), accepted: file.accepted }) : file.ledgerBefore;
    if (now) run[file.path] = now;
    else delete run[file.path];
  }
  writeState(ledgerFileOf(state), ledger);
  if (entry.kind === 'apply') writeState(state.undoFile, entry);
  else rmSync(state.undoFile, { force: true });
  rmSync(journalFileOf(state), { force: true });
}

/**
 * Write every file of `entry` (journal first, then each file, then the undo record), all or
 * nothing: a failure puts back what was written and throws.
 */
export function runJournal(repo: string, state: ReviewState, entry: Journal): void {
  writeState(journalFileOf(state), entry);
  const done: JournalFile[] = [];
  try {
    for (const file of entry.files) {
      replaceFile(repo, entry.id, file.path, decode(file.written), file.writtenMode);
      done.push(file);
    }
  } catch (error) {
    for (const file of done.reverse()) replaceFile(repo, entry.id, file.path, decode(file.previous), file.previousMode);
    removeTemps(repo, entry);
    rmSync(journalFileOf(state), { force: true });
    throw new AppError('INTERNAL', `Writing ${entry.files[done.length]?.path ?? 'a file'} failed, and nothing was kept: ${(error as Error).message}`, { cause: error });
  }
  commit(state, entry);
}

/**
 * Finish or roll back an apply (or undo) a killed process left: finished when every file holds
 * what it was to hold, else each file that holds the new bytes gets its previous ones back (a file
 * changed since by someone else is left as it is). Returns what was done, or null with no journal.
 */
export function recoverJournal(repo: string, state: ReviewState): 'finished' | 'rolled-back' | null {
  const value = readState(journalFileOf(state));
  if (value === undefined) return null;
  const parsed = journal.safeParse(value);
  if (!parsed.success) throw new AppError('INTERNAL', `The review journal ${journalFileOf(state)} is not readable; restore the files it names by hand, then delete it.`);
  const entry = parsed.data;
  removeTemps(repo, entry);
  if (entry.files.every((f) => holds(repo, f.path, f.written))) {
    commit(state, entry);
    return 'finished';
  }
  for (const file of entry.files) {
    if (file.written !== file.previous && holds(repo, file.path, file.written)) replaceFile(repo, entry.id, file.path, decode(file.previous), file.previousMode);
  }
  removeTemps(repo, entry);
  rmSync(journalFileOf(state), { force: true });
  return 'rolled-back';
}
