/**
 * Applying reviewed hunks to the user's working tree — the one place a run's change reaches it, and
 * only on the user's word. Before anything is written, every affected file must still hold the
 * content it had when the run started (never a silent overwrite of the user's own edits); each
 * file is written whole through a temporary file and a rename, confined to the repository; and
 * what was there before is kept, so the apply can be undone until the next one.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/contract';
import { confinePath } from '../fs/confine';
import { composeAccepted, reviewFile, type ChangedFile } from './hunks';

/** Largest file review reads from the working tree. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** What to apply: the run's change and the hunks the user accepted. */
export interface ApplyReviewOptions {
  /** The user's repository (its working tree is written). */
  repo: string;
  /** The run's change: each file's content at the run's start and at its end. */
  files: readonly ChangedFile[];
  /** Ids of the accepted hunks (`ReviewHunk.id`); every other hunk is rejected. */
  accepted: Iterable<string>;
  /** Where the undo record of this repository is kept (one per repository: the last apply). */
  undoFile: string;
  /** Named in the undo record (the run the change came from). */
  runId: string;
}

/** One file an apply wrote: what it held before and what was written (null: absent). */
const undoEntry = z.object({ path: z.string(), previous: z.string().nullable(), written: z.string().nullable() });
const undoRecord = z.object({ runId: z.string(), appliedAt: z.string(), files: z.array(undoEntry) });
export type UndoRecord = z.infer<typeof undoRecord>;

/** What an apply did. */
export interface ApplyReviewResult {
  /** Files written (changed, created or deleted), sorted. */
  written: string[];
  /** Accepted hunks applied. */
  hunks: number;
}

/** The file's current content in the working tree (null: absent); a link or a folder is refused. */
function currentContent(repo: string, path: string): string | null {
  const confined = confinePath(repo, path, { allowMissing: true });
  if (!confined.exists) return null;
  const stat = lstatSync(confined.absolute);
  if (!stat.isFile()) throw new AppError('VALIDATION', `${path} is not a regular file in the working tree; review does not write through it.`);
  if (stat.size > MAX_FILE_BYTES) throw new AppError('VALIDATION', `${path} is larger than ${MAX_FILE_BYTES} bytes; review does not write it.`);
  return readFileSync(confined.absolute, 'utf8');
}

/** Write (or delete, for null) one file: a temporary file beside it, then a rename over it. */
function writeWhole(repo: string, path: string, content: string | null): void {
  const confined = confinePath(repo, path, { allowMissing: true });
  if (content === null) {
    rmSync(confined.absolute, { force: true });
    return;
  }
  mkdirSync(dirname(confined.absolute), { recursive: true });
  const temp = `${confined.absolute}.cra-${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
  try {
    writeSync(fd, content);
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

function writeUndo(undoFile: string, record: UndoRecord): void {
  mkdirSync(dirname(undoFile), { recursive: true });
  const temp = `${undoFile}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify(record)}\n`);
  renameSync(temp, undoFile);
}

/** Write entries; on a failure, put back what was written and rethrow. */
function writeAll(repo: string, entries: ReadonlyArray<{ path: string; previous: string | null; content: string | null }>): void {
  const done: typeof entries[number][] = [];
  try {
    for (const entry of entries) {
      writeWhole(repo, entry.path, entry.content);
      done.push(entry);
    }
  } catch (error) {
    for (const entry of done.reverse()) writeWhole(repo, entry.path, entry.previous);
    throw new AppError('INTERNAL', `Writing ${entries[done.length]?.path ?? 'a file'} failed, and nothing was kept: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Apply the accepted hunks to the working tree. Refused (CONFLICT, naming the files) when any file
 * with an accepted hunk changed since the run started; refused (VALIDATION) for an unknown hunk id.
 * Files with no accepted hunk are not touched. The previous content goes into the undo record,
 * which replaces the last one.
 */
export function applyReviewed(options: ApplyReviewOptions): ApplyReviewResult {
  const accepted = new Set(options.accepted);
  const known = new Set<string>();
  const plans: Array<{ path: string; previous: string | null; content: string | null; hunks: number }> = [];
  const reviewed = options.files.filter((f) => f.before !== f.after).map((file) => ({ file, review: reviewFile(file) }));
  for (const { review } of reviewed) for (const hunk of review.hunks) known.add(hunk.id);
  const unknown = [...accepted].filter((id) => !known.has(id));
  if (unknown.length) throw new AppError('VALIDATION', `No hunk of this run has the id ${unknown.slice(0, 3).join(', ')}; list the hunks again (cra review RUN --json) and use their ids.`);

  const changedSince: string[] = [];
  for (const { file, review } of reviewed) {
    const taken = review.hunks.filter((h) => accepted.has(h.id)).length;
    if (taken === 0) continue;
    const now = currentContent(options.repo, file.path);
    if (now !== file.before) {
      changedSince.push(file.path);
      continue;
    }
    plans.push({ path: file.path, previous: now, content: composeAccepted(file, review.hunks, accepted), hunks: taken });
  }
  if (changedSince.length) {
    throw new AppError(
      'CONFLICT',
      `${changedSince.join(', ')} changed in the working tree since the run started; nothing was applied. Commit or stash your edits and run the task again, or reject the hunks of ${changedSince.length === 1 ? 'that file' : 'those files'}.`,
    );
  }
  writeAll(options.repo, plans);
  writeUndo(options.undoFile, {
    runId: options.runId,
    appliedAt: new Date().toISOString(),
    files: plans.map((p) => ({ path: p.path, previous: p.previous, written: p.content })),
  });
  return { written: plans.map((p) => p.path).sort(), hunks: plans.reduce((n, p) => n + p.hunks, 0) };
}

/** The last apply's record, or null when there is none to undo. */
export function readUndo(undoFile: string): UndoRecord | null {
  let text: string;
  try {
    text = readFileSync(undoFile, 'utf8');
  } catch {
    return null;
  }
  const parsed = undoRecord.safeParse(JSON.parse(text));
  if (!parsed.success) throw new AppError('INTERNAL', `The undo record ${undoFile} is not readable (${parsed.error.issues[0]?.message}); delete it to go on.`);
  return parsed.data;
}

/**
 * Undo the last apply: each file it wrote gets its previous content back. Refused (CONFLICT) when
 * a written file changed since (the user edited it after applying); then nothing is restored.
 */
export function undoLastApply(repo: string, undoFile: string): { restored: string[]; runId: string } {
  const record = readUndo(undoFile);
  if (!record) throw new AppError('NOT_FOUND', 'There is no apply to undo in this repository.');
  const edited = record.files.filter((f) => currentContent(repo, f.path) !== f.written).map((f) => f.path);
  if (edited.length) {
    throw new AppError('CONFLICT', `${edited.join(', ')} changed since the apply; nothing was undone. Revert those edits by hand (git diff shows them).`);
  }
  writeAll(repo, record.files.map((f) => ({ path: f.path, previous: f.written, content: f.previous })));
  rmSync(undoFile, { force: true });
  return { restored: record.files.map((f) => f.path).sort(), runId: record.runId };
}

/** Where a repository's undo record lives: `<repository data folder>/review/undo.json`. */
export function undoFileOf(repoDataDir: string): string {
  return join(repoDataDir, 'review', 'undo.json');
}
