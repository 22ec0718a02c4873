/**
 * Targeted text edits of a TOML document: set or remove one key of one table while every other
 * byte — comments, blank lines, key order — stays as the user wrote it. Callers re-parse the
 * result to verify it (see configFile.ts); these functions never guess about odd layouts silently.
 */

/** A value the editor can write: scalars and one-level inline tables. */
export type TomlScalar = string | number | boolean;
/** A value the editor can write. */
export type TomlValue = TomlScalar | Record<string, TomlScalar>;

interface Span {
  start: number;
  end: number;
}

interface KeySpan {
  /** Start of the key's line. */
  lineStart: number;
  valueStart: number;
  valueEnd: number;
  /** End of the statement's line including its newline. */
  lineEnd: number;
}

interface TableRegion {
  /** Where the header line ends (after its newline), or 0 for the root table. */
  bodyStart: number;
  end: number;
  keys: Map<string, KeySpan>;
  /** End (after newline) of the last key-value statement, or bodyStart. */
  lastStatementEnd: number;
}

/** Render a value as TOML inline text. `likeFloat` keeps `1.0`-style floats for integral numbers. */
export function renderTomlValue(value: TomlValue, likeFloat = false): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`Cannot write ${value} to TOML.`);
    return Number.isInteger(value) && likeFloat ? `${value}.0` : String(value);
  }
  const parts = Object.entries(value).map(([k, v]) => `${renderKey(k)} = ${renderTomlValue(v)}`);
  return `{${parts.join(', ')}}`;
}

/** Set `key` in `[table]` (dotted name, e.g. "models.overrides"); inserts the key or the table when missing. */
export function setTomlKey(text: string, table: string, key: string, value: TomlValue): string {
  const region = findTable(text, table);
  if (!region) {
    const sep = text.length === 0 || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
    return `${text}${sep}[${table}]\n${renderKey(key)} = ${renderTomlValue(value)}\n`;
  }
  const existing = region.keys.get(key);
  if (existing) {
    const old = text.slice(existing.valueStart, existing.valueEnd);
    // Keep "1.0" style only where the old value was a float literal (not any text with an "e" in it).
    const likeFloat = typeof value === 'number' && /^[+-]?\d[\d_]*(\.\d|[eE])/.test(old);
    return text.slice(0, existing.valueStart) + renderTomlValue(value, likeFloat) + text.slice(existing.valueEnd);
  }
  const at = region.lastStatementEnd;
  const prefix = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
  return `${text.slice(0, at)}${prefix}${renderKey(key)} = ${renderTomlValue(value)}\n${text.slice(at)}`;
}

/** Remove `key` from `[table]` (its whole line, trailing comment included); unchanged when absent. */
export function removeTomlKey(text: string, table: string, key: string): string {
  const span = findTable(text, table)?.keys.get(key);
  if (!span) return text;
  return text.slice(0, span.lineStart) + text.slice(span.lineEnd);
}

/**
 * The 1-based line where a key path is written (["retrieval", "top_k"], or a deeper path into an
 * inline table, which gives the line of its outermost key); else the line of the nearest table
 * header on the path; undefined when neither is written (a default, or a dotted-key layout).
 */
export function keyLineOf(text: string, path: readonly string[]): number | undefined {
  const lineAt = (offset: number) => text.slice(0, offset).split('\n').length;
  for (let i = path.length - 1; i >= 0; i--) {
    const span = findTable(text, path.slice(0, i).join('.'))?.keys.get(path[i] as string);
    if (span) return lineAt(span.lineStart);
  }
  for (let i = path.length; i >= 1; i--) {
    const region = findTable(text, path.slice(0, i).join('.'));
    if (region && region.bodyStart > 0) return lineAt(region.bodyStart - 1);
  }
  return undefined;
}

function renderKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

const HEADER = /^[ \t]*\[(?!\[)([^\]\n#]*)\][ \t]*(#.*)?$/;
const KEY_LINE = /^[ \t]*("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[A-Za-z0-9_-]+)[ \t]*=[ \t]*/;

function normalizeTableName(name: string): string {
  return name
    .split('.')
    .map((part) => part.trim().replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1'))
    .join('.');
}

/** Locate a table's body and its direct keys by walking statements (multi-line values are skipped whole). */
function findTable(text: string, table: string): TableRegion | undefined {
  let pos = 0;
  let current: TableRegion | undefined = table === '' ? { bodyStart: 0, end: text.length, keys: new Map(), lastStatementEnd: 0 } : undefined;
  while (pos < text.length) {
    const lineEnd = endOfLine(text, pos);
    const line = text.slice(pos, lineEnd.contentEnd);
    const header = HEADER.exec(line);
    if (header || line.trimStart().startsWith('[[')) {
      if (current) {
        current.end = pos;
        return current;
      }
      if (header && normalizeTableName(header[1] ?? '') === table) {
        current = { bodyStart: lineEnd.next, end: text.length, keys: new Map(), lastStatementEnd: lineEnd.next };
      }
      pos = lineEnd.next;
      continue;
    }
    const keyMatch = KEY_LINE.exec(line);
    if (keyMatch) {
      const valueStart = pos + keyMatch[0].length;
      const value = scanValue(text, valueStart);
      const stmtEnd = endOfLine(text, value.end).next;
      if (current) {
        const rawKey = keyMatch[1] ?? '';
        const key = rawKey.startsWith('"') ? (JSON.parse(rawKey) as string) : rawKey.replace(/^'(.*)'$/, '$1');
        current.keys.set(key, { lineStart: pos, valueStart, valueEnd: value.end, lineEnd: stmtEnd });
        current.lastStatementEnd = stmtEnd;
      }
      pos = stmtEnd;
      continue;
    }
    pos = lineEnd.next;
  }
  return current;
}

function endOfLine(text: string, from: number): { contentEnd: number; next: number } {
  const nl = text.indexOf('\n', from);
  if (nl === -1) return { contentEnd: text.length, next: text.length };
  return { contentEnd: nl > 0 && text[nl - 1] === '\r' ? nl - 1 : nl, next: nl + 1 };
}

/** The extent of one value starting at `start`: strings, arrays and inline tables may span lines. */
function scanValue(text: string, start: number): Span {
  let i = start;
  let depth = 0;
  while (i < text.length) {
    const ch = text[i];
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) {
      const quote = text.slice(i, i + 3);
      i = closeString(text, i + 3, quote, quote === '"""');
      continue;
    }
    if (ch === '"' || ch === "'") {
      i = closeString(text, i + 1, ch, ch === '"');
      continue;
    }
    if (ch === '[' || ch === '{') depth++;
    else if (ch === ']' || ch === '}') depth--;
    else if (ch === '#') {
      if (depth <= 0) break;
      i = text.indexOf('\n', i);
      if (i === -1) i = text.length;
      continue;
    } else if (ch === '\n' && depth <= 0) break;
    i++;
  }
  let end = i;
  while (end > start && /[ \t\r]/.test(text[end - 1] ?? '')) end--;
  return { start, end };
}

function closeString(text: string, from: number, quote: string, escapes: boolean): number {
  let i = from;
  while (i < text.length) {
    if (escapes && text[i] === '\\') {
      i += 2;
      continue;
    }
    if (text.startsWith(quote, i)) return i + quote.length;
    if (quote.length === 1 && text[i] === '\n') return i;
    i++;
  }
  return i;
}
