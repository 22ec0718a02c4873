/**
 * The hunks of a run's change, for review: each changed file's content before the run and after
 * it, cut into hunks the user accepts or rejects one by one, and the content that results from
 * the accepted ones only. The hunks are computed here from the two contents (not parsed from a
 * diff's text), so what is shown and what is applied are the same thing.
 *
 * Contents are bytes. Lines are cut and composed on a "byte string" (each byte one character,
 * latin1), so a file in any encoding — latin-1, UTF-8, CRLF endings — comes out byte for byte;
 * only what is shown is decoded (as UTF-8). A file with a NUL byte is binary: one whole-file hunk.
 */
import { nodeCrypto } from '../../platform/nodeModules';
import { structuredPatch } from 'diff';

/** One file of a change: its bytes at the run's start and at its end (null: absent), in the working tree's form. */
export interface ChangedFile {
  path: string;
  before: Buffer | null;
  after: Buffer | null;
  /** git's modes (`100644`, `100755`) on each side; left out: `100644`. */
  beforeMode?: string | null;
  afterMode?: string | null;
}

/** One hunk: where it lies in the file before (1-based; an insertion lies before `oldStart`) and its lines (' ', '-', '+'). */
export interface ReviewHunk {
  /** `<path>#<n>:<hash>`: stable for the same change, different when the change differs. */
  id: string;
  index: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** A changed file and its hunks. */
export interface ReviewFile {
  path: string;
  status: 'added' | 'deleted' | 'modified';
  hunks: ReviewHunk[];
  /** A git-style unified diff of the file (for diff2html and the CLI), decoded for display. */
  diff: string;
  /** Set for a binary file (a NUL byte on either side): its sizes in bytes (null: absent); its one hunk is the whole file. */
  binary?: { before: number | null; after: number | null };
}

/** Lines context around each hunk (git's default). */
const CONTEXT = 3;

/** A byte string: each byte one character (what hunks cut and compose). */
const bytesText = (bytes: Buffer | null): string => (bytes === null ? '' : bytes.toString('latin1'));

/** A line of a byte string as shown: decoded as UTF-8, a CRLF line's CR left out. */
export function displayLine(line: string): string {
  return Buffer.from(line, 'latin1').toString('utf8').replace(/\r$/, '');
}

/** git's test: a NUL byte in the first 8,000 bytes makes a file binary. */
export function isBinaryContent(bytes: Buffer | null): boolean {
  return bytes !== null && bytes.subarray(0, 8000).includes(0);
}

/** Same bytes (both absent included). */
export function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function hunkId(path: string, index: number, lines: readonly string[]): string {
  const hash = nodeCrypto().createHash('sha256').update(path).update('\0').update(lines.join('\n'), 'latin1').digest('hex').slice(0, 10);
  return `${path}#${index}:${hash}`;
}

function unifiedText(file: ChangedFile, hunks: readonly ReviewHunk[], binary: boolean): string {
  const from = file.before === null ? '/dev/null' : `a/${file.path}`;
  const to = file.after === null ? '/dev/null' : `b/${file.path}`;
  const out = [`diff --git a/${file.path} b/${file.path}`];
  if (file.before === null) out.push(`new file mode ${file.afterMode ?? '100644'}`);
  if (file.after === null) out.push(`deleted file mode ${file.beforeMode ?? '100644'}`);
  if (binary) return `${[...out, `Binary files ${from} and ${to} differ`].join('\n')}\n`;
  out.push(`--- ${from}`, `+++ ${to}`);
  for (const hunk of hunks) out.push(hunkHeader(hunk), ...hunk.lines.map(displayLine));
  return `${out.join('\n')}\n`;
}

/** A hunk's unified header; it names the line before an insertion (or 0): the inverse of our `oldStart`. */
export function hunkHeader(hunk: Pick<ReviewHunk, 'oldStart' | 'oldLines' | 'newStart' | 'newLines'>): string {
  const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
  const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
  return `@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`;
}

/** Cut one file's change into hunks. A file whose content did not change has none. */
export function reviewFile(file: ChangedFile): ReviewFile {
  const status = file.before === null ? 'added' : file.after === null ? 'deleted' : 'modified';
  if (isBinaryContent(file.before) || isBinaryContent(file.after)) {
    // One hunk, the whole file: its id names the bytes it writes (or their absence).
    const digest = file.after === null ? 'absent' : nodeCrypto().createHash('sha256').update(file.after).digest('hex');
    const hunk: ReviewHunk = { id: hunkId(file.path, 0, [digest]), index: 0, oldStart: 1, oldLines: 0, newStart: 1, newLines: 0, lines: [] };
    const binary = { before: file.before?.length ?? null, after: file.after?.length ?? null };
    return { path: file.path, status, hunks: [hunk], diff: unifiedText(file, [hunk], true), binary };
  }
  const patch = structuredPatch(file.path, file.path, bytesText(file.before), bytesText(file.after), '', '', { context: CONTEXT });
  const hunks = patch.hunks.map((h, index) => ({
    id: hunkId(file.path, index, h.lines),
    index,
    // `structuredPatch` numbers an insertion's hunk by the line before it; ours names the line it precedes.
    oldStart: h.oldLines === 0 ? h.oldStart + 1 : h.oldStart,
    oldLines: h.oldLines,
    newStart: h.newLines === 0 ? h.newStart + 1 : h.newStart,
    newLines: h.newLines,
    lines: h.lines,
  }));
  return { path: file.path, status, hunks, diff: unifiedText(file, hunks, false) };
}

/** Every changed file of a change, sorted by path; unchanged files are left out. */
export function reviewFiles(files: readonly ChangedFile[]): ReviewFile[] {
  return files
    .filter((f) => !sameBytes(f.before, f.after))
    .map(reviewFile)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The file's content with only the accepted hunks applied to `before`: null when it ends absent
 * (an accepted deletion, or a rejected creation). Every hunk's removed and context lines are
 * checked against `before`; a mismatch is an error (the hunks are not of this content).
 */
export function composeAccepted(file: ChangedFile, hunks: readonly ReviewHunk[], accepted: ReadonlySet<string>): Buffer | null {
  const taken = hunks.filter((h) => accepted.has(h.id));
  if (taken.length === hunks.length) return file.after;
  if (taken.length === 0) return file.before;
  return Buffer.from(composeText(bytesText(file.before), file.before === null, hunks, accepted), 'latin1');
}

/** `composeAccepted` on byte strings, for a change only part of which is accepted. */
function composeText(before: string, absent: boolean, hunks: readonly ReviewHunk[], accepted: ReadonlySet<string>): string {
  const source = splitLines(before);
  const out: string[] = [];
  let next = 0; // index into `source` of the first line not yet copied
  let endsWithNewline = absent || before === '' || before.endsWith('\n');
  for (const hunk of hunks) {
    const start = hunk.oldStart - 1;
    if (start < next) throw new Error(`hunk ${hunk.id} overlaps the one before it`);
    out.push(...source.slice(next, start));
    const old: string[] = [];
    const added: string[] = [];
    let lastWas: string | undefined;
    let noNewlineOld = false;
    let noNewlineNew = false;
    for (const line of hunk.lines) {
      const mark = line[0];
      if (mark === '\\') {
        if (lastWas === '-' || lastWas === ' ') noNewlineOld = true;
        if (lastWas === '+' || lastWas === ' ') noNewlineNew = true;
        continue;
      }
      lastWas = mark;
      const text = line.slice(1);
      if (mark === ' ' || mark === '-') old.push(text);
      if (mark === ' ' || mark === '+') added.push(text);
    }
    const actual = source.slice(start, start + old.length);
    if (actual.length !== old.length || actual.some((line, i) => line !== old[i])) {
      throw new Error(`hunk ${hunk.id} does not match the file's content before the run`);
    }
    const isLast = start + old.length >= source.length;
    if (accepted.has(hunk.id)) {
      out.push(...added);
      if (isLast) endsWithNewline = !noNewlineNew;
    } else {
      out.push(...old);
      if (isLast && noNewlineOld) endsWithNewline = false;
    }
    next = start + old.length;
  }
  out.push(...source.slice(next));
  if (out.length === 0) return '';
  return out.join('\n') + (endsWithNewline ? '\n' : '');
}
