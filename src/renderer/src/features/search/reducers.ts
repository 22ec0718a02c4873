import type { OutlineSymbol } from '../../../../shared/contract';
import type { SearchResult } from '../../../../shared/contract/search';

/**
 * The symbol a query names exactly: a single identifier, dotted or not (`JSONDecoder`,
 * `Parser.parse`); null for a phrase or anything else.
 */
export function namedSymbol(query: string): string | null {
  const q = query.trim();
  return /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(q) ? q : null;
}

/**
 * The definition of exactly `name` among `symbols` (same name or qualified name, else the same
 * last segment; case-sensitive before case-insensitive), the earliest by line; null when none.
 * `add_argument` never matches `add_arguments`.
 */
export function definitionOf<T extends { name: string; qualifiedName?: string; startLine: number; endLine: number }>(symbols: readonly T[], name: string): T | null {
  const tail = (s: string) => s.slice(s.lastIndexOf('.') + 1);
  const tests: Array<(s: T) => boolean> = [
    (s) => s.name === name || s.qualifiedName === name,
    (s) => tail(s.qualifiedName ?? s.name) === tail(name),
    (s) => tail(s.qualifiedName ?? s.name).toLowerCase() === tail(name).toLowerCase(),
  ];
  for (const test of tests) {
    const found = symbols.filter(test).sort((a, b) => a.startLine - b.startLine)[0];
    if (found) return found;
  }
  return null;
}

/**
 * Where opening a result goes: the definition of the symbol the query names when the result lists
 * it; else its best line (the line of the best chunk with most query terms), else its best symbol's
 * lines, else its first matching line, else the top. `symbol` asks the file view to move to that
 * definition once the file's outline is known (the result lists only its best symbols).
 */
export function openTarget(result: SearchResult, query = ''): { path: string; line: number; endLine?: number; symbol?: string } {
  const name = namedSymbol(query);
  const named = name ? definitionOf(result.symbols, name) : null;
  if (named) return { path: result.path, line: named.startLine, symbol: name ?? undefined };
  const hint = name ? { symbol: name } : {};
  if (result.bestLine !== null) return { path: result.path, line: result.bestLine, ...hint };
  const symbol = result.symbols[0];
  if (symbol) return { path: result.path, line: symbol.startLine, endLine: symbol.endLine, ...hint };
  const line = result.lines[0];
  return { path: result.path, line: line ? line.line : 1, ...hint };
}

/** Move a list selection by `delta`, clamped to the list; -1 stays -1 for an empty list. */
export function moveSelection(index: number, count: number, delta: number): number {
  if (count === 0) return -1;
  if (index < 0) return delta > 0 ? 0 : count - 1;
  return Math.max(0, Math.min(count - 1, index + delta));
}

/** One outline entry with its nesting depth. */
export interface OutlineEntry {
  symbol: OutlineSymbol;
  depth: number;
}

/**
 * The outline as a tree flattened in source order: each symbol follows its parent, indented by
 * depth. A symbol whose parent is not in the list is shown at the top level.
 */
export function outlineTree(symbols: OutlineSymbol[]): OutlineEntry[] {
  const ids = new Set(symbols.map((s) => s.id));
  const children = new Map<number | null, OutlineSymbol[]>();
  for (const symbol of symbols) {
    const parent = symbol.parentId !== null && ids.has(symbol.parentId) ? symbol.parentId : null;
    const list = children.get(parent) ?? [];
    list.push(symbol);
    children.set(parent, list);
  }
  const out: OutlineEntry[] = [];
  const visit = (parent: number | null, depth: number) => {
    const list = (children.get(parent) ?? []).slice().sort((a, b) => a.startLine - b.startLine || a.endLine - b.endLine);
    for (const symbol of list) {
      out.push({ symbol, depth });
      visit(symbol.id, depth + 1);
    }
  };
  visit(null, 0);
  return out;
}

/** The innermost symbol whose lines contain `line`, for highlighting the outline. */
export function symbolAt(symbols: OutlineSymbol[], line: number): OutlineSymbol | null {
  let best: OutlineSymbol | null = null;
  for (const s of symbols) {
    if (s.startLine <= line && line <= s.endLine && (!best || s.endLine - s.startLine < best.endLine - best.startLine)) best = s;
  }
  return best;
}

/** "12–40" or "12" for a line range. */
export function lineRange(startLine: number, endLine?: number): string {
  return endLine && endLine !== startLine ? `${startLine}–${endLine}` : `${startLine}`;
}

/** A piece of text, `hit` when it is an occurrence of a query term. */
export interface TextPart {
  text: string;
  hit: boolean;
}

/**
 * A case-insensitive pattern for the query terms (two characters or more, as the engine matches
 * them), longest first so `getuser` wins over `get`; null when there is nothing to highlight.
 */
export function termPattern(terms: readonly string[]): RegExp | null {
  const usable = [...new Set(terms.filter((t) => t.length >= 2))].sort((a, b) => b.length - a.length);
  if (usable.length === 0) return null;
  return new RegExp(usable.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
}

/** Split a line into plain parts and query-term hits, for highlighting a snippet. */
export function highlightParts(text: string, terms: readonly string[]): TextPart[] {
  const pattern = termPattern(terms);
  if (!pattern) return text ? [{ text, hit: false }] : [];
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index), hit: false });
    parts.push({ text: match[0], hit: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), hit: false });
  return parts;
}

/** The snippet line a result row shows: the best line when it is among the matching lines, else the first. */
export function snippetOf(result: SearchResult): { line: number; text: string } | null {
  return result.lines.find((l) => l.line === result.bestLine) ?? result.lines[0] ?? null;
}

/** The symbol a result row names: the innermost listed symbol around the best line, else the best one. */
export function rowSymbol(result: SearchResult): SearchResult['symbols'][number] | null {
  const line = result.bestLine;
  const around = line === null ? [] : result.symbols.filter((s) => s.startLine <= line && line <= s.endLine);
  around.sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine));
  return around[0] ?? result.symbols[0] ?? null;
}

/** Limits of the results / file splitter, in CSS pixels. */
export const SPLIT = { defaultResults: 360, minResults: 220, minFile: 380 } as const;

/**
 * The results column width for a drag or a stored value: at least `minResults`, and small enough
 * that the file pane keeps `minFile` of a `total`-wide split (the results give way first when the
 * window is too narrow for both).
 */
export function clampResultsWidth(width: number, total: number): number {
  const max = Math.max(SPLIT.minResults, total - SPLIT.minFile);
  return Math.round(Math.min(max, Math.max(SPLIT.minResults, width)));
}
