import { detach } from './detach';
import type { ExtractedSymbol } from './extract/types';

/** A symbol-aligned piece of a file, the unit of full-text search. Lines are 1-based, inclusive. */
export interface Chunk {
  startLine: number;
  endLine: number;
  kind: string;
  symbolNames: string;
  identifiers: string;
  text: string;
}

/** Longest chunk in lines; longer symbols are cut into windows of this size. */
const MAX_CHUNK_LINES = 80;
/** Window size for text outside symbols and for unparsed files. */
const TEXT_WINDOW_LINES = 50;
/** Characters of text kept per chunk (FTS input, not a display limit). */
const MAX_CHUNK_CHARS = 16_000;
/** Identifier words kept per chunk. */
const IDENTIFIER_WORDS_LIMIT = 2000;

/**
 * Split the compound identifiers of a text into lower-case words: `parseHTTPResponse` → parse http
 * response, `get_user_id` → get user id. Returns unique words (2+ characters) and the compound
 * identifiers themselves, space-separated. Plain words are left out: the text column has them.
 */
export function splitIdentifiers(text: string, limit = IDENTIFIER_WORDS_LIMIT): string {
  const words = new Set<string>();
  addIdentifierWords(words, text, limit);
  return [...words].join(' ');
}

/**
 * Add the words of the compound identifiers of `text` to `words` (up to `limit` words). Only
 * compound identifiers match (an underscore, a lower→upper step or an acronym before a word):
 * plain words are most of a text and are skipped by the regex engine, not in JS. Words start at a
 * word boundary, so number literals (0xFFFF_FFFF, 1_000) are not split.
 */
function addIdentifierWords(words: Set<string>, text: string, limit: number): void {
  const re = /\b(?=[A-Za-z_])\w*?(?:_|[a-z0-9][A-Z]|[A-Z]{2}[a-z])\w*/g;
  for (let m = re.exec(text); m !== null && words.size < limit; m = re.exec(text)) {
    if (m[0].length < 2) continue;
    for (const word of wordCache.of(m[0])) words.add(word);
  }
}

/**
 * Identifiers remembered per thread before the cache starts over. At 100k, held as slices, the
 * cache was ≈ 70 MB of a parse worker on the 50k-file corpus (42 MB of it file texts; docs/evaluation.md); 20k copies chunk 12k development-set files as fast.
 */
export const WORD_CACHE_LIMIT = 20_000;

/**
 * A compound identifier's words, cached per identifier (a thread chunks one file after another, and
 * identifiers repeat across them), at most `limit` identifiers at a time. Keys and words are copies:
 * a match or a split part of a source text is a slice that keeps the whole file's text alive, so a
 * cache of slices held the texts of thousands of files.
 */
export class WordCache {
  private readonly words = new Map<string, readonly string[]>();

  constructor(private readonly limit = WORD_CACHE_LIMIT) {}

  /** Identifiers held now (never more than the limit). */
  get size(): number {
    return this.words.size;
  }

  /** The identifier itself lower-cased, then its parts of 2+ characters, lower-cased. */
  of(ident: string): readonly string[] {
    let words = this.words.get(ident);
    if (words === undefined) {
      const parts = ident
        .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
        .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
        .split(/[_\s]+/)
        .filter((p) => p.length > 1)
        .map((p) => detach(p.toLowerCase()));
      words = [detach(ident.toLowerCase()), ...parts];
      if (this.words.size >= this.limit) this.words.clear();
      this.words.set(detach(ident), words);
    }
    return words;
  }
}

const wordCache = new WordCache();

/** Words of a path for the path index: `src/core/userStore.ts` → src core user store ts userstore. */
export function pathTokens(path: string): string {
  const plain = path.split(/[^A-Za-z0-9_]+/).filter((w) => w.length > 1);
  return [...new Set([...plain.map((w) => w.toLowerCase()), ...splitIdentifiers(path).split(' ').filter(Boolean)])].join(' ');
}

/**
 * Cut a file into chunks: one per top-level symbol (classes split into a header chunk and one per
 * method), long symbols into windows, and the lines between symbols into text windows. A file
 * without symbols (text, unparsed languages) becomes text windows.
 */
export function buildChunks(text: string, symbols: readonly ExtractedSymbol[]): Chunk[] {
  const lines = new LineIndex(text);
  const spans = symbolSpans(symbols);
  const chunks: Chunk[] = [];
  let cursor = 1;
  for (const span of spans) {
    if (span.start > cursor) pushWindows(chunks, lines, cursor, span.start - 1, 'text', '');
    pushWindows(chunks, lines, span.start, span.end, span.kind, span.names, MAX_CHUNK_LINES);
    cursor = Math.max(cursor, span.end + 1);
  }
  if (cursor <= lines.count) pushWindows(chunks, lines, cursor, lines.count, 'text', '');
  return chunks;
}

/** Where each line of a text starts: a range of lines is one slice of the text, not a join of line strings. */
class LineIndex {
  private readonly starts: number[] = [0];
  /** Lines as `text.split('\n')` counts them (a final newline is followed by an empty line). */
  readonly count: number;

  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
    this.count = this.starts.length;
  }

  /** Lines `from`..`to` (1-based, inclusive, within the text) joined by their newlines. */
  slice(from: number, to: number): string {
    if (from > this.count) return '';
    const end = to < this.count ? this.starts[to]! - 1 : this.text.length;
    return this.text.slice(this.starts[from - 1], end);
  }
}

interface Span {
  start: number;
  end: number;
  kind: string;
  names: string;
}

function symbolSpans(symbols: readonly ExtractedSymbol[]): Span[] {
  const spans: Span[] = [];
  const childrenOf = new Map<number, ExtractedSymbol[]>();
  symbols.forEach((c) => {
    if (c.parent === null) return;
    const list = childrenOf.get(c.parent);
    if (list) list.push(c);
    else childrenOf.set(c.parent, [c]);
  });
  const topLevel = symbols.map((s, i) => ({ s, i })).filter(({ s }) => s.parent === null);
  for (const { s, i } of topLevel.sort((a, b) => a.s.startLine - b.s.startLine)) {
    const members = childrenOf.get(i) ?? [];
    const methods = members.filter((c) => c.kind === 'method').sort((a, b) => a.startLine - b.startLine);
    const long = s.endLine - s.startLine + 1 > MAX_CHUNK_LINES;
    if (methods.length === 0 || !long) {
      const names = [s.qualifiedName, ...members.map((c) => c.qualifiedName)].join(' ');
      spans.push({ start: s.startLine, end: s.endLine, kind: s.kind, names });
      continue;
    }
    // A long class: its header (up to the first method) names the class; each method is its own chunk.
    let cursor = s.startLine;
    for (const child of methods) {
      if (child.startLine > cursor) spans.push({ start: cursor, end: child.startLine - 1, kind: s.kind, names: s.qualifiedName });
      spans.push({ start: child.startLine, end: child.endLine, kind: child.kind, names: `${child.qualifiedName} ${s.qualifiedName}` });
      cursor = Math.max(cursor, child.endLine + 1);
    }
    if (cursor <= s.endLine) spans.push({ start: cursor, end: s.endLine, kind: s.kind, names: s.qualifiedName });
  }
  return spans.filter((span) => span.end >= span.start);
}

function pushWindows(chunks: Chunk[], lines: LineIndex, start: number, end: number, kind: string, names: string, size = TEXT_WINDOW_LINES): void {
  for (let from = start; from <= end; from += size) {
    const to = Math.min(end, from + size - 1);
    const text = lines.slice(from, to).slice(0, MAX_CHUNK_CHARS);
    // Blank stretches (between a class's methods, mostly) carry nothing to search.
    if (!/\S/.test(text)) continue;
    const words = new Set<string>();
    addIdentifierWords(words, names, IDENTIFIER_WORDS_LIMIT);
    addIdentifierWords(words, text, IDENTIFIER_WORDS_LIMIT);
    chunks.push({ startLine: from, endLine: to, kind, symbolNames: names, identifiers: [...words].join(' '), text });
  }
}
