import { reasonKey, type Reason } from '../../shared/contract/reasons';
import type { SearchResult, SearchSymbol } from '../../shared/contract/search';
import type { ChunkLines, SearchIndex } from '../kb/searchIndex';
import type { DefinitionHit } from './graph';
import type { FileHit } from './keyword';
import type { ParsedQuery } from './query';

const MAX_SYMBOLS = 5;
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
    const symbols: SearchSymbol[] = [];
    const seen = new Set<string>();
    const push = (s: SearchSymbol) => {
      const key = `${s.name}:${s.startLine}`;
      if (seen.has(key) || symbols.length >= MAX_SYMBOLS) return;
      seen.add(key);
      symbols.push(s);
    };
    // Qualified like the chunks' symbols below, so a method found both ways is listed once.
    for (const d of definitions.get(hit.fileId) ?? []) push({ name: d.qualifiedName, kind: d.kind, startLine: d.startLine, endLine: d.endLine });
    // Only the best chunk's text is shown; the next two give their symbols' names.
    const chunks = hit.chunks.slice(0, 3).map((c, i) => index.chunkLines(c.chunkId, i === 0));
    for (const chunk of chunks) {
      if (!chunk) continue;
      // The innermost (last listed) symbol of a chunk is the most specific one.
      for (const qualified of chunk.symbol_names.split(/\s+/).filter(Boolean).reverse()) {
        const row: SearchSymbol | undefined = index.symbolInFile(qualified.slice(qualified.lastIndexOf('.') + 1), hit.fileId, qualified);
        if (row) push({ ...row, name: qualified });
      }
    }
    const definition = definitions.get(hit.fileId)?.[0];
    return {
      path: index.pathOf(hit.fileId) ?? '',
      score: roundScore(hit.score),
      symbols: withoutModuleDunders(symbols),
      lines: chunks[0] ? matchingLines(chunks[0], query) : [],
      bestLine: chunks[0] ? bestLine(chunks[0], query) : (definition?.startLine ?? null),
      why: uniqueReasons(hit.why),
    };
  });
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
