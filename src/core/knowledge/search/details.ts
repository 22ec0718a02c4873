import { reasonKey, type Reason } from '../../../shared/contract/reasons';
import type { SearchResult, SearchSymbol } from '../../../shared/contract/search';
import type { ChunkLines, SearchIndex } from '../kb/searchIndex';
import type { DefinitionHit } from './graph';
import type { FileHit } from './keyword';
import type { ParsedQuery } from './query';
import { UNITS } from './rankingConstants';

const MAX_LINES = 3;
const MAX_LINE_CHARS = 200;

type ChunkRow = ChunkLines;

/**
 * A score as results carry it: `decimals` places, except that a positive score below the last place
 * keeps two significant digits instead of reading 0. A file matched only by a term that every file
 * has (the `py` of `mailer.py`: FTS5's smallest weight) scores about 1e-6; it is a hit, ranked last,
 * not a file without a score.
 */
export function roundScore(score: number, decimals = 4): number {
  const step = 10 ** decimals;
  const rounded = Math.round(score * step) / step;
  return rounded === 0 && score !== 0 ? Number(score.toPrecision(2)) : rounded;
}

/** Turn ranked file hits into results: path, best symbols with line ranges, matching lines, reasons. */
export function describeResults(
  index: SearchIndex,
  hits: readonly FileHit[],
  query: ParsedQuery,
  definitions: Map<number, DefinitionHit[]>,
): SearchResult[] {
  return hits.map((hit) => {
    const symbols = rankSymbols(index, hit, definitions.get(hit.fileId) ?? []);
    // Only the best chunk's text is shown.
    const chunks = hit.chunks.slice(0, 1).map((c) => index.chunkLines(c.chunkId, true));
    const definition = definitions.get(hit.fileId)?.[0];
    return {
      path: index.pathOf(hit.fileId) ?? '',
      score: roundScore(hit.score),
      symbols,
      lines: chunks[0] ? matchingLines(chunks[0], query) : [],
      bestLine: chunks[0] ? bestLine(chunks[0], query) : (definition?.startLine ?? null),
      why: uniqueReasons(hit.why),
    };
  });
}

/**
 * A file's symbols, best first, each with its `score`: the file's score × the symbol's share — 1 for
 * a definition the query names and for the symbol a symbol-graph reason reached; for a symbol of a
 * matching chunk, the chunk's BM25 over the file's best chunk (the innermost symbol of a chunk at
 * that share, the symbols around it at `UNITS.enclosingShare` of it; `UNITS.chunks` chunks, `UNITS.symbols` listed). The scores are comparable across
 * files, so a function ranking can interleave the files' symbols (eval/functionLevel.ts).
 */
function rankSymbols(index: SearchIndex, hit: FileHit, definitions: readonly DefinitionHit[]): SearchSymbol[] {
  const byKey = new Map<string, SearchSymbol>();
  const offer = (s: Omit<SearchSymbol, 'score'>, share: number) => {
    const key = `${s.name}:${s.startLine}`;
    const score = roundScore(hit.score * share);
    const known = byKey.get(key);
    if (!known || (known.score ?? 0) < score) byKey.set(key, { ...s, score });
  };
  // Qualified like the chunks' symbols below, so a method found both ways is listed once.
  for (const d of definitions) offer({ name: d.qualifiedName, kind: d.kind, startLine: d.startLine, endLine: d.endLine }, 1);
  for (const why of hit.why) {
    if (why.kind !== 'symbol-graph') continue;
    const qualified = why.detail.symbol;
    const row = index.symbolInFile(qualified.slice(qualified.lastIndexOf('.') + 1), hit.fileId, qualified);
    if (row) offer({ ...row, name: qualified }, 1);
  }
  const chunks = hit.chunks.slice(0, UNITS.chunks);
  const best = chunks[0]?.score || 1;
  for (const c of chunks) {
    const chunk = index.chunkLines(c.chunkId, false);
    if (!chunk) continue;
    // The innermost (last listed) symbol of a chunk is the most specific one.
    const names = chunk.symbol_names.split(/\s+/).filter(Boolean).reverse();
    for (const [depth, qualified] of names.entries()) {
      const row = index.symbolInFile(qualified.slice(qualified.lastIndexOf('.') + 1), hit.fileId, qualified);
      if (row) offer({ ...row, name: qualified }, (c.score / best) * (depth === 0 ? 1 : UNITS.enclosingShare));
    }
  }
  const ranked = [...byKey.values()].sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
  return withoutModuleDunders(ranked).slice(0, UNITS.symbols);
}

/**
 * `__all__`, `__version__` and the like match most queries that name the module's contents, yet
 * tell nothing about where to look: they are listed only when a file has no other symbol to show.
 */
function withoutModuleDunders(symbols: SearchSymbol[]): SearchSymbol[] {
  const isDunder = (s: SearchSymbol) => /^__\w+__$/.test(s.name) && (s.kind === 'variable' || s.kind === 'constant');
  const rest = symbols.filter((s) => !isDunder(s));
  return rest.length > 0 ? rest : symbols;
}

/**
 * The reasons without repeats (the same signal may be offered twice, e.g. by keyword and vector
 * sides), definitions first: naming the symbol the query asks for is the strongest signal.
 */
function uniqueReasons(reasons: readonly Reason[]): Reason[] {
  const seen = new Set<string>();
  const unique = reasons.filter((r) => !seen.has(reasonKey(r)) && seen.add(reasonKey(r)));
  return [...unique.filter((r) => r.kind === 'definition'), ...unique.filter((r) => r.kind !== 'definition')];
}

/** The distinct query terms (≥ 2 characters) in a line, by substring, case-insensitive. */
function termsIn(line: string, terms: readonly string[]): number {
  const lower = line.toLowerCase();
  return terms.reduce((n, t) => (lower.includes(t) ? n + 1 : n), 0);
}

/**
 * The line of a chunk to open at: the one with the most distinct query terms, the first of equals;
 * the chunk's first line when no line has a term (it matched by path or by a stemmed form).
 */
export function bestLine(chunk: Pick<ChunkRow, 'start_line' | 'text'>, query: ParsedQuery): number {
  const terms = query.terms.filter((t) => t.length >= 2);
  let best = { line: chunk.start_line, count: 0 };
  chunk.text.split('\n').forEach((text, i) => {
    const count = termsIn(text, terms);
    if (count > best.count) best = { line: chunk.start_line + i, count };
  });
  return best.line;
}

/** Lines of a chunk that contain a query term (by substring, case-insensitive), first few. */
export function matchingLines(chunk: Pick<ChunkRow, 'start_line' | 'text'>, query: ParsedQuery): Array<{ line: number; text: string }> {
  const terms = query.terms.filter((t) => t.length >= 2);
  if (terms.length === 0) return [];
  const out: Array<{ line: number; text: string }> = [];
  const lines = chunk.text.split('\n');
  for (let i = 0; i < lines.length && out.length < MAX_LINES; i++) {
    if (termsIn(lines[i]!, terms) > 0) out.push({ line: chunk.start_line + i, text: lines[i]!.trim().slice(0, MAX_LINE_CHARS) });
  }
  return out;
}
