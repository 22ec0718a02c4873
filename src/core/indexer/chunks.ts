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

/**
 * Split the compound identifiers of a text into lower-case words: `parseHTTPResponse` → parse http
 * response, `get_user_id` → get user id. Returns unique words (2+ characters) and the compound
 * identifiers themselves, space-separated. Plain words are left out: the text column has them.
 */
export function splitIdentifiers(text: string, limit = 2000): string {
  const words = new Set<string>();
  // Only compound identifiers match (an underscore, a lower→upper step or an acronym before a
  // word): plain words are most of a text and are skipped by the regex engine, not in JS. Words
  // start at a word boundary, so number literals (0xFFFF_FFFF, 1_000) are not split.
  const re = /\b(?=[A-Za-z_])\w*?(?:_|[a-z0-9][A-Z]|[A-Z]{2}[a-z])\w*/g;
  for (let m = re.exec(text); m !== null && words.size < limit; m = re.exec(text)) {
    const ident = m[0];
    if (ident.length < 2) continue;
    words.add(ident.toLowerCase());
    const parts = ident
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .split(/[_\s]+/);
    for (const p of parts) if (p.length > 1) words.add(p.toLowerCase());
  }
  return [...words].join(' ');
}

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
export function buildChunks(lines: string[], symbols: readonly ExtractedSymbol[]): Chunk[] {
  const spans = symbolSpans(symbols);
  const chunks: Chunk[] = [];
  let cursor = 1;
  for (const span of spans) {
    if (span.start > cursor) pushWindows(chunks, lines, cursor, span.start - 1, 'text', '');
    pushWindows(chunks, lines, span.start, span.end, span.kind, span.names, MAX_CHUNK_LINES);
    cursor = Math.max(cursor, span.end + 1);
  }
  if (cursor <= lines.length) pushWindows(chunks, lines, cursor, lines.length, 'text', '');
  return chunks;
}

interface Span {
  start: number;
  end: number;
  kind: string;
  names: string;
}

function symbolSpans(symbols: readonly ExtractedSymbol[]): Span[] {
  const spans: Span[] = [];
  const topLevel = symbols.map((s, i) => ({ s, i })).filter(({ s }) => s.parent === null);
  for (const { s, i } of topLevel.sort((a, b) => a.s.startLine - b.s.startLine)) {
    const children = symbols.filter((c) => c.parent === i && c.kind === 'method').sort((a, b) => a.startLine - b.startLine);
    const long = s.endLine - s.startLine + 1 > MAX_CHUNK_LINES;
    if (children.length === 0 || !long) {
      const names = [s.qualifiedName, ...symbols.filter((c) => c.parent === i).map((c) => c.qualifiedName)].join(' ');
      spans.push({ start: s.startLine, end: s.endLine, kind: s.kind, names });
      continue;
    }
    // A long class: its header (up to the first method) names the class; each method is its own chunk.
    let cursor = s.startLine;
    for (const child of children) {
      if (child.startLine > cursor) spans.push({ start: cursor, end: child.startLine - 1, kind: s.kind, names: s.qualifiedName });
      spans.push({ start: child.startLine, end: child.endLine, kind: child.kind, names: `${child.qualifiedName} ${s.qualifiedName}` });
      cursor = Math.max(cursor, child.endLine + 1);
    }
    if (cursor <= s.endLine) spans.push({ start: cursor, end: s.endLine, kind: s.kind, names: s.qualifiedName });
  }
  return spans.filter((span) => span.end >= span.start);
}

function pushWindows(chunks: Chunk[], lines: string[], start: number, end: number, kind: string, names: string, size = TEXT_WINDOW_LINES): void {
  for (let from = start; from <= end; from += size) {
    const to = Math.min(end, from + size - 1);
    const text = lines.slice(from - 1, to).join('\n').slice(0, MAX_CHUNK_CHARS);
    // Blank stretches (between a class's methods, mostly) carry nothing to search.
    if (text.trim().length === 0) continue;
    chunks.push({ startLine: from, endLine: to, kind, symbolNames: names, identifiers: splitIdentifiers(`${names} ${text}`), text });
  }
}
