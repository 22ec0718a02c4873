import type { OutlineSymbol } from '../../../../shared/contract';
import type { SearchResult } from '../../../../shared/contract/search';

/** The family of a `why` reason, for the badge's colour. */
export type WhyKind = 'text' | 'path' | 'definition' | 'semantic' | 'imported' | 'imports' | 'cochange' | 'other';

/** Classify one `why` reason of a search result (`definition of X`, `imported by a hit (p)` ...). */
export function whyKind(reason: string): WhyKind {
  const r = reason.toLowerCase();
  if (r.startsWith('text match')) return 'text';
  if (r.startsWith('path match')) return 'path';
  if (r.startsWith('definition')) return 'definition';
  if (r.startsWith('semantic')) return 'semantic';
  if (r.startsWith('imported by')) return 'imported';
  if (r.startsWith('imports')) return 'imports';
  if (r.startsWith('changes together')) return 'cochange';
  return 'other';
}

/** Where opening a result goes: its best symbol's lines, else its first matching line, else the top. */
export function openTarget(result: SearchResult): { path: string; line: number; endLine?: number } {
  const symbol = result.symbols[0];
  if (symbol) return { path: result.path, line: symbol.startLine, endLine: symbol.endLine };
  const line = result.lines[0];
  return { path: result.path, line: line ? line.line : 1 };
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
