/**
 * Applying reviewed hunks to the user's working tree — the one place a run's change reaches it, and
 * only on the user's word. Before anything is written, every affected file must still hold the
 * bytes it had when the run started, or the bytes an earlier apply of the same run wrote (never a
 * silent overwrite of the user's own edits); files are written byte for byte with their mode kept,
 * all or nothing through a journal (journal.ts), confined to the repository; and what was there
 * before is kept, so the apply can be undone until the next one.
 */
import { nodeCrypto } from '../../platform/nodeModules';
import { AppError } from '../../../shared/contract';
import { composeAccepted, reviewFile, sameBytes, type ChangedFile } from './hunks';
import { decode, encode, readCurrent, readLedger, readUndoRecord, hasJournal, recoverJournal, runJournal, sha256, withApplyLock, type Journal, type JournalFile, type ReviewState } from './journal';
import { undoFileOf } from '../../platform/layout';

/** What to apply: the run's change and the hunks the user accepted. */
export interface ApplyReviewOptions {
  /** The user's repository (its working tree is written). */
  repo: string;
  /** The run's change: each file's bytes at the run's start and at its end. */
  files: readonly ChangedFile[];
  /** Ids of the accepted hunks (`ReviewHunk.id`); every other hunk is rejected. */
  accepted: Iterable<string>;
  /** Where the undo record of this repository is kept (one per repository: the last apply). */
  undoFile: string;
  /** Named in the undo record (the run the change came from). */
  runId: string;
}

/** The last apply, as review shows it. */
export interface UndoRecord {
  runId: string;
  appliedAt: string;
  files: Array<{ path: string }>;
}

/** What an apply did. */
export interface ApplyReviewResult {
  /** Files written (changed, created or deleted), sorted. */
  written: string[];
  /** Accepted hunks applied. */
  hunks: number;
}

/** The mode to write: the file's own (kept), a new file's from the run, or the run's mode change. */
function modeFor(file: ChangedFile, currentMode: number | null): number {
  const executable = (mode: string | null | undefined) => mode === '100755';
  if (currentMode === null) return executable(file.afterMode) ? 0o755 : 0o644;
  if (file.beforeMode && file.afterMode && file.beforeMode !== file.afterMode) return executable(file.afterMode) ? currentMode | 0o111 : currentMode & ~0o111;
  return currentMode;
}

/** Finish or roll back an apply a killed process left (run before anything reads or writes). */
export function recoverApply(repo: string, undoFile: string): 'finished' | 'rolled-back' | null {
  const state: ReviewState = { undoFile };
  // No journal, nothing to recover: no lock is taken (review/get calls this every time).
  if (!hasJournal(state)) return null;
  try {
    return withApplyLock(state, () => recoverJournal(repo, state));
  } catch (error) {
    // Another process is applying right now: its journal is not a left-over.
    if (error instanceof AppError && error.code === 'CONFLICT') return null;
    throw error;
  }
}

/**
 * At an engine's start: finish or roll back the applies that killed processes left in any
 * registered repository (a journal in its review folder); a repository whose recovery fails is
 * reported through `warn` and left for its next review call.
 */
export function recoverApplies(repos: ReadonlyArray<{ path: string; dataDir: string }>, warn: (message: string) => void): void {
  for (const repo of repos) {
    try {
      const done = recoverApply(repo.path, undoFileOf(repo.dataDir));
      if (done) warn(`An apply to ${repo.path} was interrupted; it was ${done === 'finished' ? 'finished' : 'rolled back'}.`);
    } catch (error) {
      warn(`An interrupted apply to ${repo.path} could not be recovered yet: ${(error as Error).message}`);
    }
  }
}

/**
 * Apply the accepted hunks to the working tree. Refused (CONFLICT, naming the files) when any file
 * with an accepted hunk changed since the run started (an earlier apply of this run's own hunks
 * does not count: those hunks stay applied); refused (VALIDATION) for an unknown hunk id. Files
 * with no accepted hunk are not touched. The previous bytes go into the undo record, which
 * replaces the last one.
 */
export function applyReviewed(options: ApplyReviewOptions): ApplyReviewResult {
  const state: ReviewState = { undoFile: options.undoFile };
  return withApplyLock(state, () => applyLocked(options, state));
}

function applyLocked(options: ApplyReviewOptions, state: ReviewState): ApplyReviewResult {
  recoverJournal(options.repo, state);
  const accepted = new Set(options.accepted);
  const known = new Set<string>();
  const reviewed = options.files.filter((f) => !sameBytes(f.before, f.after)).map((file) => ({ file, review: reviewFile(file) }));
  for (const { review } of reviewed) for (const hunk of review.hunks) known.add(hunk.id);
  const unknown = [...accepted].filter((id) => !known.has(id));
  if (unknown.length) throw new AppError('VALIDATION', `No hunk of this run has the id ${unknown.slice(0, 3).join(', ')}; list the hunks again (cra review RUN --json) and use their ids.`);

  const ours = readLedger(state)[options.runId] ?? {};
  const changedSince: string[] = [];
  const files: JournalFile[] = [];
  let hunks = 0;
  for (const { file, review } of reviewed) {
    const taken = review.hunks.filter((h) => accepted.has(h.id)).map((h) => h.id);
    if (taken.length === 0) continue;
    const now = readCurrent(options.repo, file.path);
    const mine = ours[file.path];
    // Already written by an apply of this run: those hunks stay, the new ones are added.
    const earlier = !sameBytes(now.bytes, file.before) && mine && now.bytes && sha256(now.bytes) === mine.sha256 ? mine.accepted : null;
    if (!sameBytes(now.bytes, file.before) && !earlier) {
      changedSince.push(file.path);
      continue;
    }
    const union = new Set([...(earlier ?? []), ...taken]);
    const content = composeAccepted(file, review.hunks, union);
    const fresh = taken.filter((id) => !earlier?.includes(id));
    if (fresh.length === 0 || sameBytes(content, now.bytes)) continue;
    hunks += fresh.length;
    files.push({ path: file.path, previous: encode(now.bytes), previousMode: now.mode, written: encode(content), writtenMode: content === null ? null : modeFor(file, now.mode), accepted: [...union], ledgerBefore: mine ?? null });
  }
  if (changedSince.length) {
    throw new AppError(
      'CONFLICT',
      `${changedSince.join(', ')} changed in the working tree since the run started; nothing was applied. Commit or stash your edits and run the task again, or reject the hunks of ${changedSince.length === 1 ? 'that file' : 'those files'}.`,
    );
  }
  if (files.length === 0) return { written: [], hunks: 0 };
  const entry: Journal = { version: 2, id: nodeCrypto().randomBytes(4).toString('hex'), kind: 'apply', runId: options.runId, appliedAt: new Date().toISOString(), files };
  runJournal(options.repo, state, entry);
  return { written: files.map((p) => p.path).sort(), hunks };
}

/**
 * The hunks of a run that its applies have written and the working tree still holds: a file counts
 * while its bytes are those the run's last apply wrote (an undo, or the user's own edit, drops it).
 */
export function appliedHunks(repo: string, undoFile: string, runId: string): string[] {
  const ours = readLedger({ undoFile })[runId] ?? {};
  return Object.entries(ours).flatMap(([path, entry]) => {
    const now = readCurrent(repo, path).bytes;
    return now && sha256(now) === entry.sha256 ? entry.accepted : [];
  });
}

/** The last apply's record, or null when there is none to undo. */
export function readUndo(undoFile: string): UndoRecord | null {
  return readUndoRecord({ undoFile });
}

/**
 * Undo the last apply: each file it wrote gets its previous bytes and mode back. Refused
 * (CONFLICT) when a written file changed since (the user edited it after applying); then nothing
 * is restored.
 */
export function undoLastApply(repo: string, undoFile: string): { restored: string[]; runId: string } {
  const state: ReviewState = { undoFile };
  return withApplyLock(state, () => undoLocked(repo, state));
}

function undoLocked(repo: string, state: ReviewState): { restored: string[]; runId: string } {
  recoverJournal(repo, state);
  const record = readUndoRecord(state);
  if (!record) throw new AppError('NOT_FOUND', 'There is no apply to undo in this repository.');
  const current = record.files.map((f) => readCurrent(repo, f.path));
  const edited = record.files.filter((f, i) => !sameBytes(current[i]!.bytes, decode(f.written))).map((f) => f.path);
  if (edited.length) {
    throw new AppError('CONFLICT', `${edited.join(', ')} changed since the apply; nothing was undone. Revert those edits by hand (git diff shows them).`);
  }
  // A record of the first format has no modes: the file's own is kept.
  const files = record.files.map((f, i) => ({ ...f, previous: f.written, previousMode: f.writtenMode, written: f.previous, writtenMode: f.previousMode ?? current[i]!.mode }));
  runJournal(repo, state, { ...record, id: nodeCrypto().randomBytes(4).toString('hex'), kind: 'undo', files });
  return { restored: record.files.map((f) => f.path).sort(), runId: record.runId };
}

