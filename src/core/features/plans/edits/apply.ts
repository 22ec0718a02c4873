/**
 * Edits applied in isolation: a model's search/replace blocks are checked and applied in a git
 * worktree of ours (core/git), never in the user's working tree, every path confined to the
 * checkout (core/fs/confine), all or nothing per attempt, and the outcome is a unified diff.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, constants, lstatSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { confinePath, readConfinedFile } from '../../../platform/fs/confine';
import { gitText, Worktree } from '../../../platform/git';
import { parseEditBlocks, type EditBlock } from './blocks';
import { nestedRepositoryProblem } from './submodules';
import { applyFilePatch, looksLikeUnifiedDiff, parseUnifiedDiff, type PatchEdit } from './unifiedDiff';

export type { EditBlock } from './blocks';
export type { PatchEdit } from './unifiedDiff';

/** One parsed edit: a search/replace block or one file's unified-diff patch. */
export type Edit = EditBlock | PatchEdit;

/** Parse a model's reply as unified diffs when it reads as one, else as search/replace blocks. */
export function parseEdits(reply: string): { ok: true; edits: Edit[]; format: 'search-replace' | 'unified-diff' } | { ok: false; reason: string } {
  if (looksLikeUnifiedDiff(reply)) {
    const parsed = parseUnifiedDiff(reply);
    return parsed.ok ? { ok: true, edits: parsed.patches, format: 'unified-diff' } : parsed;
  }
  const parsed = parseEditBlocks(reply);
  return parsed.ok ? { ok: true, edits: parsed.blocks, format: 'search-replace' } : parsed;
}

/** The outcome of one attempt: the diff of the checkout against its commit, or why nothing was written. */
export type ApplyResult = { ok: true; diff: string; files: string[] } | { ok: false; reason: string };

/** Largest file an edit may change (a bigger one is not source a model should rewrite). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

interface Pending {
  absolute: string;
  relative: string;
  /** null: the file does not exist yet. */
  original: string | null;
  /** null: the file is deleted. */
  content: string | null;
  /**
   * The file is not UTF-8 (latin-1 `caf\xe9`): its contents are byte strings (latin1, a byte a
   * character) so that every byte outside the edit stays; the model's text is written as UTF-8.
   */
  bytes: boolean;
}

/** The model's text as a byte string of its UTF-8 bytes (for a file that is not UTF-8). */
const asBytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

/** A block's texts as the file holds them. */
function inFileForm(block: Edit, bytes: boolean): Edit {
  if (!bytes) return block;
  if ('patch' in block) return { ...block, patch: { ...block.patch, hunks: block.patch.hunks.map((h) => ({ ...h, lines: h.lines.map(asBytes) })) } };
  return { ...block, search: asBytes(block.search), replace: asBytes(block.replace) };
}

function occurrences(haystack: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = haystack.indexOf(needle); i >= 0 && at.length < 2; i = haystack.indexOf(needle, i + 1)) at.push(i);
  return at;
}

/** Compute every block's effect in memory; the first problem fails the whole attempt. */
function prepare(root: string, blocks: readonly Edit[]): Map<string, Pending> | string {
  const files = new Map<string, Pending>();
  for (const given of blocks) {
    let block = given;
    const name = `${'patch' in block ? 'diff' : 'edit block'} ${block.index} (${block.path})`;
    let confined;
    try {
      confined = confinePath(root, block.path, { allowMissing: true });
    } catch (error) {
      return `${name}: ${error instanceof Error ? error.message : String(error)}`;
    }
    let file = files.get(confined.relative);
    if (!file) {
      let original: string | null = null;
      let bytes = false;
      if (confined.exists) {
        if (!lstatSync(confined.absolute).isFile()) return `${name}: the path is not a regular file`;
        const read = readConfinedFile(root, confined.relative, MAX_FILE_BYTES);
        if (read.size > MAX_FILE_BYTES) return `${name}: the file is larger than ${MAX_FILE_BYTES} bytes`;
        bytes = !isUtf8(read.bytes);
        original = read.bytes.toString(bytes ? 'latin1' : 'utf8');
      }
      file = { absolute: confined.absolute, relative: confined.relative, original, content: original ?? '', bytes };
      files.set(confined.relative, file);
    }
    block = inFileForm(block, file.bytes);
    if ('patch' in block) {
      const current = file.content === '' && file.original === null ? null : file.content;
      const patched = applyFilePatch(current, block);
      if (!patched.ok) return `${name}: ${patched.reason}`;
      file.content = patched.content;
      continue;
    }
    if (file.content === null) return `${name}: an earlier edit deletes this file`;
    if (block.search === '') {
      if (file.original !== null || file.content !== '') return `${name}: SEARCH is empty but the file exists; copy the lines to change into SEARCH`;
      file.content = block.replace === '' ? '' : `${block.replace}\n`;
      continue;
    }
    if (file.original === null && file.content === '') return `${name}: the file does not exist; an empty SEARCH creates a file`;
    const at = occurrences(file.content, block.search);
    if (at.length === 0) return `${name}: the SEARCH text was not found; it must copy the file's current lines exactly`;
    if (at.length > 1) return `${name}: the SEARCH text matches more than one place; include more lines so it matches exactly once`;
    const i = at[0]!;
    file.content = file.content.slice(0, i) + block.replace + file.content.slice(i + block.search.length);
  }
  return files;
}

function writeFile(file: Pending): void {
  if (file.content === null) {
    rmSync(file.absolute, { force: true });
    return;
  }
  mkdirSync(dirname(file.absolute), { recursive: true });
  // O_NOFOLLOW: a link planted after the check is not followed; O_EXCL: a new file is really new.
  const flags = constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (file.original === null ? constants.O_EXCL : constants.O_TRUNC);
  const fd = openSync(file.absolute, flags, 0o644);
  try {
    writeSync(fd, Buffer.from(file.content, file.bytes ? 'latin1' : 'utf8'));
  } finally {
    closeSync(fd);
  }
}

/**
 * Apply a reply's blocks (or parsed blocks) to a checkout of ours: all are checked first (path
 * confined, SEARCH found exactly once, a new file really new), then written; a write that fails
 * puts back what was written. Returns the checkout's diff against its commit (new files
 * included), or the reason of a failed attempt with nothing changed.
 */
export async function applyEdits(checkout: string, edits: string | readonly Edit[], signal?: AbortSignal): Promise<ApplyResult> {
  let blocks: readonly Edit[];
  if (typeof edits === 'string') {
    const parsed = parseEdits(edits);
    if (!parsed.ok) return { ok: false, reason: parsed.reason };
    blocks = parsed.edits;
  } else blocks = edits;
  const planned = prepare(checkout, blocks);
  if (typeof planned === 'string') return { ok: false, reason: planned };
  const changed = [...planned.values()].filter((f) => f.content !== f.original);
  const nested = await nestedRepositoryProblem(checkout, changed.map((f) => f.relative), signal);
  if (nested) return { ok: false, reason: nested };
  const written: Pending[] = [];
  try {
    for (const file of changed) {
      writeFile(file);
      written.push(file);
    }
  } catch (error) {
    for (const file of written) {
      if (file.original === null) rmSync(file.absolute, { force: true });
      else writeFile({ ...file, content: file.original, original: file.content === null ? null : file.original });
    }
    return { ok: false, reason: `writing failed, nothing kept: ${(error as Error).message}` };
  }
  const paths = changed.map((f) => f.relative);
  // The checkout's own index (git keeps one per worktree), never the user's; -f: an ignored new file still shows.
  if (paths.length) await gitText(['add', '-f', '--', ...paths], { cwd: checkout, signal });
  const diff = await gitText(['diff', '--cached', '--no-renames', '--no-ext-diff', '--no-color', '--src-prefix=a/', '--dst-prefix=b/'], { cwd: checkout, signal });
  return { ok: true, diff, files: paths };
}

/** Where and what to apply in isolation. */
export interface IsolatedApplyOptions {
  /** The user's repository (read only). */
  repo: string;
  /** Our worktrees folder (`worktreesDir(dataDir)`). */
  root: string;
  /** The model's reply (search/replace blocks or a unified diff) or parsed edits. */
  edits: string | readonly Edit[];
  /** Default HEAD. */
  commit?: string;
  /** Keep the worktree for the caller (which must remove it); default: removed after the diff. */
  keep?: boolean;
  signal?: AbortSignal;
}

/**
 * Apply edits in a fresh worktree of the repository at `commit` (HEAD by default) and return the
 * diff; the user's working tree and index are never written. The worktree is removed unless `keep`.
 */
export async function applyEditsIsolated(options: IsolatedApplyOptions): Promise<ApplyResult & { worktree?: Worktree }> {
  const worktree = await Worktree.create({ repo: options.repo, commit: options.commit ?? 'HEAD', root: options.root, label: 'edit', signal: options.signal });
  let result: ApplyResult;
  try {
    result = await applyEdits(worktree.path, options.edits, options.signal);
  } catch (error) {
    await worktree.remove();
    throw error;
  }
  if (!options.keep) {
    await worktree.remove();
    return result;
  }
  return { ...result, worktree };
}
