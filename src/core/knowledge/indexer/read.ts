/**
 * Reading one file for the index: hash, encoding, line count and whether it is indexable text.
 * Kept apart from the listing (scan.ts) so the parse workers load nothing but what they run.
 */
import { nodeCrypto } from '../../platform/nodeModules';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { SkipReason } from '../../../shared/contract';
import { hasGeneratedMarker } from './generated';

/** Files above this size are recorded as `oversize` and not read. */
export const DEFAULT_MAX_FILE_BYTES = 1_000_000;

/** A file read and classified: either text to index or a reason to skip it. */
export interface ReadFile {
  hash: string | null;
  text: string | null;
  encoding: 'utf8' | 'latin1' | null;
  lines: number;
  skipReason: SkipReason | null;
  /**
   * The head of a generated code file (see {@link generatedHead}): not parsed, but searchable, so
   * the file can be found by its name, its generator and its first definitions. Null otherwise.
   */
  head?: string | null;
}

/** Lines of a generated file's head that search sees, and the characters kept of each. */
export const GENERATED_HEAD = { lines: 40, lineChars: 240 } as const;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const PROSE = /\.(md|markdown|mdx|rst|txt|adoc)$/;
const LOCKFILES = new Set(['package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'cargo.lock', 'poetry.lock', 'composer.lock', 'gemfile.lock', 'go.sum']);

/** Read one file and decide whether it is indexable text (UTF-8, else decoded as latin1). */
export function readAndClassify(absolutePath: string, relPath: string, size: number, maxBytes = DEFAULT_MAX_FILE_BYTES): ReadFile {
  if (size > maxBytes) return { hash: null, text: null, encoding: null, lines: 0, skipReason: 'oversize' };
  let bytes: Buffer | null;
  try {
    bytes = readUnlessBinary(absolutePath);
  } catch {
    return { hash: null, text: null, encoding: null, lines: 0, skipReason: 'unreadable' };
  }
  // A binary file is recognised from its head and not read further (nor hashed).
  if (bytes === null) return { hash: null, text: null, encoding: null, lines: 0, skipReason: 'binary' };
  const hash = nodeCrypto().createHash('sha1').update(bytes).digest('hex');
  let text: string;
  let encoding: 'utf8' | 'latin1' = 'utf8';
  try {
    text = utf8.decode(bytes);
  } catch {
    text = bytes.toString('latin1');
    encoding = 'latin1';
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = countLines(text);
  const name = fileNameOf(relPath);
  const skipReason = minifiedOrGenerated(name, text, lines);
  const head = skipReason === 'generated' && !LOCKFILES.has(name) ? generatedHead(text) : null;
  return { hash, text: skipReason ? null : text, encoding, lines, skipReason, head };
}

/**
 * The first `GENERATED_HEAD.lines` lines of a generated file, each cut at `GENERATED_HEAD.lineChars`
 * characters (a generated table or pattern is one enormous line). A generated file is edited when
 * its generator or its subject changes ("update identifier pattern for Python 3.10"), and its head
 * says what it is: the comment naming the generator, the names it defines. Lock files have none.
 */
export function generatedHead(text: string): string {
  const lines = text.split('\n', GENERATED_HEAD.lines);
  return lines.map((line) => (line.length > GENERATED_HEAD.lineChars ? line.slice(0, GENERATED_HEAD.lineChars) : line)).join('\n');
}

/** Bytes read to tell a binary file (a NUL byte among them) from text. */
const BINARY_SNIFF_BYTES = 8192;

/** The whole file, or null when its head holds a NUL byte (binary); each byte is read once. */
function readUnlessBinary(path: string): Buffer | null {
  // The listing left links out; one swapped in since is not followed (it fails as unreadable).
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const bytes = Buffer.allocUnsafe(fstatSync(fd).size);
    let filled = readInto(fd, bytes, 0, Math.min(BINARY_SNIFF_BYTES, bytes.length));
    if (bytes.subarray(0, filled).includes(0)) return null;
    filled += readInto(fd, bytes, filled, bytes.length - filled);
    return bytes.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** Read `length` bytes at `offset` of the file into `buffer` at the same offset; fewer at end of file. */
function readInto(fd: number, buffer: Buffer, offset: number, length: number): number {
  let done = 0;
  while (done < length) {
    const read = readSync(fd, buffer, offset + done, length - done, offset + done);
    if (read === 0) break;
    done += read;
  }
  return done;
}

/** Number of lines (a final line without a newline counts). */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/** The lower-cased file name of a repository path. */
function fileNameOf(relPath: string): string {
  return relPath.slice(relPath.lastIndexOf('/') + 1).toLowerCase();
}

/** `name`: the lower-cased file name ({@link fileNameOf}). */
function minifiedOrGenerated(name: string, text: string, lines: number): SkipReason | null {
  if (/\.min\.(js|mjs|cjs|css)$/.test(name) || name.endsWith('.map')) return 'minified';
  if (LOCKFILES.has(name)) return 'generated';
  if (text.length > 2000 && text.length / Math.max(lines, 1) > 300) return 'minified';
  // Only a statement about the file itself (generated.ts), not any mention of generated code.
  if (hasGeneratedMarker(text, { prose: PROSE.test(name) })) return 'generated';
  return null;
}
