import { reasonKey, type Reason } from '../../../shared/contract/reasons';
import type { SearchResult, SearchSymbol } from '../../../shared/contract/search';
import type { ChunkLines, SearchIndex } from '../kb/searchIndex';
import { UNIT_KINDS } from '../kb/types';
import type { DefinitionHit } from './graph';
import type { ChunkHit, FileHit } from './keyword';
import type { ParsedQuery } from './query';
import { CHUNK_WEIGHTS, GRAPH, UNITS } from './rankingConstants';
import { chunkMatch, type ChunkMatch } from './termStats';

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
  const match = UNITS.deepFiles > 0 && hits.length > 0 ? chunkMatch(index, query) : null;
  const deepPool = match ? deepChunkPool(index, match) : [];
  const terms = query.terms.filter((t) => t.length >= 2);
  return hits.map((hit, rank) => {
    const deep = match !== null && rank < UNITS.deepFiles;
    const limits = { chunks: deep ? UNITS.deepChunks : UNITS.chunks, symbols: deep ? UNITS.deepSymbols : UNITS.symbols, callees: rank < UNITS.calleeFiles };
    const symbols = rankSymbols(index, deep ? { ...hit, chunks: ownChunks(deepPool, hit) } : hit, definitions.get(hit.fileId) ?? [], limits, terms);
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

/** The best `UNITS.deepPool` chunks for the query, by the search's chunk BM25 (the fallback when the expression finds none). */
function deepChunkPool(index: SearchIndex, match: ChunkMatch): ChunkHit[] {
  const weights = [CHUNK_WEIGHTS.path, CHUNK_WEIGHTS.symbolNames, CHUNK_WEIGHTS.identifiers, CHUNK_WEIGHTS.text] as const;
  const rows = index.chunkBm25(match.expression, weights, UNITS.deepPool);
  return rows.length === 0 && match.fallback ? index.chunkBm25(match.fallback, weights, UNITS.deepPool) : rows;
}

/**
 * The chunks of one of the best files ranked among the file's own chunks: the search's pool holds
 * the best chunks of the whole repository, so a long file near the top has only a few of them, and
 * the method a report is about is often in none. A larger pool of the same BM25 (`UNITS.deepPool`
 * chunks, read once per search) gives the file's next chunks, merged with those of the search's
 * pool (a chunk keeps its better score), best first, at most `UNITS.deepChunks`.
 */
function ownChunks(deep: readonly ChunkHit[], hit: FileHit): ChunkHit[] {
  const best = new Map<number, ChunkHit>();
  for (const c of [...hit.chunks, ...deep.filter((d) => d.fileId === hit.fileId)]) if ((best.get(c.chunkId)?.score ?? Number.NEGATIVE_INFINITY) < c.score) best.set(c.chunkId, c);
  return [...best.values()].sort((a, b) => b.score - a.score);
}

/**
 * A file's symbols, best first, each with its `score`: the file's score × the symbol's share — 1 for
 * a definition the query names and for the symbol a symbol-graph reason reached; for a symbol of a
 * matching chunk, the chunk's BM25 over the file's best chunk (the innermost symbol of a chunk at
 * that share, the symbols around it at `UNITS.enclosingShare` of it; `UNITS.chunks` chunks, `UNITS.symbols` listed). The scores are comparable across
 * files, so a function ranking can interleave the files' symbols (eval/functionLevel.ts).
 */
function rankSymbols(index: SearchIndex, hit: FileHit, definitions: readonly DefinitionHit[], limits: { chunks: number; symbols: number; callees: boolean }, terms: readonly string[]): SearchSymbol[] {
  const byKey = new Map<string, SearchSymbol>();
  const offer = (s: Omit<SearchSymbol, 'score'>, share: number) => {
    const key = `${s.name}:${s.startLine}`;
    const score = roundScore(hit.score * share);
    const known = byKey.get(key);
    if (!known || (known.score ?? 0) < score) byKey.set(key, { ...s, score });
  };
  // Qualified like the chunks' symbols below, so a method found both ways is listed once.
  // A name the query gives as a plain word (\`range\`, \`args\`) says less than an identifier (\`parse_dict_header\`).
  for (const d of definitions) {
    const byWord = d.weight !== undefined && d.weight < GRAPH.definitionIdentifier;
    offer({ name: d.qualifiedName, kind: d.kind, startLine: d.startLine, endLine: d.endLine }, byWord ? UNITS.namedWordShare : 1);
  }
  for (const why of hit.why) {
    if (why.kind !== 'symbol-graph') continue;
    const qualified = why.detail.symbol;
    const row = index.symbolInFile(qualified.slice(qualified.lastIndexOf('.') + 1), hit.fileId, qualified);
    if (row) offer({ ...row, name: qualified }, 1);
  }
  const chunks = hit.chunks.slice(0, limits.chunks);
  const best = chunks[0]?.score || 1;
  for (const c of chunks) {
    if (UNITS.lineShares > 0) {
      for (const { symbol, share } of chunkSymbols(index, hit.fileId, c.chunkId, terms)) offer(symbol, (c.score / best) * share);
      continue;
    }
    const chunk = index.chunkLines(c.chunkId, false);
    if (!chunk) continue;
    // The innermost (last listed) symbol of a chunk is the most specific one.
    const names = chunk.symbol_names.split(/\s+/).filter(Boolean).reverse();
    for (const [depth, qualified] of names.entries()) {
      const row = index.symbolInFile(qualified.slice(qualified.lastIndexOf('.') + 1), hit.fileId, qualified);
      if (row) offer({ ...row, name: qualified }, (c.score / best) * (depth === 0 ? 1 : UNITS.enclosingShare));
    }
  }
  const byScore = () => [...byKey.values()].sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
  if (limits.callees && UNITS.calleeShare > 0 && hit.score > 0) {
    const callers = byScore().filter((s) => UNIT_KINDS.has(s.kind)).slice(0, UNITS.calleeCallers);
    const share = new Map(callers.map((s) => [s.name, (s.score ?? 0) / hit.score]));
    const reached = new Map<string, { symbol: Omit<SearchSymbol, 'score'>; share: number }>();
    for (const c of index.calleesInFile(hit.fileId, [...share.keys()], 50)) {
      const key = `${c.qualifiedName}:${c.startLine}`;
      const value = (share.get(c.caller) ?? 0) * UNITS.calleeShare;
      const known = reached.get(key);
      const sum = UNITS.calleeSum > 0 ? (known?.share ?? 0) + value : Math.max(known?.share ?? 0, value);
      reached.set(key, { symbol: { name: c.qualifiedName, kind: c.kind, startLine: c.startLine, endLine: c.endLine }, share: Math.min(1, sum) });
    }
    for (const { symbol, share: value } of reached.values()) offer(symbol, value);
  }
  return withoutModuleDunders(byScore()).slice(0, limits.symbols);
}

/**
 * The symbols of one chunk with their shares of the chunk's score. A chunk lists every symbol of the
 * definition it was cut from (a long function split in parts lists all its inner functions in
 * each part), so only the symbols whose lines overlap the chunk count; the innermost of those share
 * the chunk by the query terms on their lines in it — the one with the most distinct terms 1, one
 * with none `UNITS.termFloor` — and the symbols around them rank at `UNITS.enclosingShare`; the
 * functions defined inside the innermost ones, which the chunk does not name, follow (`nestedSymbols`).
 */
function chunkSymbols(index: SearchIndex, fileId: number, chunkId: number, terms: readonly string[]): Array<{ symbol: Omit<SearchSymbol, 'score'>; share: number }> {
  const chunk = index.chunkLines(chunkId, true);
  if (!chunk) return [];
  // The symbols on the chunk's lines (a getter and a setter share a qualified name) that it names:
  // whole names of the space-separated list, which may hold spaces (`create."CallExpression > Super.callee"`).
  const overlapping = index.symbolsOverlapping(fileId, chunk.start_line, chunk.end_line, UNITS.overlapLimit);
  const names = ` ${chunk.symbol_names} `;
  const rows = overlapping.filter((s) => names.includes(` ${s.name} `));
  const innermost = rows.filter((r) => !rows.some((o) => encloses(r, o)));
  const lines = chunk.text.split('\n');
  const termCount = (r: { startLine: number; endLine: number }) => {
    const from = Math.max(r.startLine, chunk.start_line) - chunk.start_line;
    const to = Math.min(r.endLine, chunk.end_line) - chunk.start_line;
    const text = lines.slice(from, to + 1).join('\n').toLowerCase();
    return terms.reduce((n, t) => (text.includes(t) ? n + 1 : n), 0);
  };
  const counts = new Map(innermost.map((r) => [r, innermost.length > 1 ? termCount(r) : 1]));
  const most = Math.max(0, ...counts.values());
  const shares = rows.map((r) => {
    const count = counts.get(r);
    if (count === undefined) return { symbol: r, share: UNITS.enclosingShare };
    return { symbol: r, share: most === 0 ? 1 : UNITS.termFloor + (1 - UNITS.termFloor) * (count / most) };
  });
  return UNITS.nestedShare > 0 ? [...shares, ...nestedSymbols(overlapping.filter((s) => !rows.includes(s)), shares.filter((s) => innermost.includes(s.symbol)))] : shares;
}

/**
 * The functions and classes defined inside a chunk's innermost symbols, which its `symbol_names`
 * does not list: a chunk names its definition and that one's members, so a function nested in a
 * method (SQLite's `get_unique_constraints.parse_uqs`, werkzeug's `run_wsgi.write`) or two levels
 * down in a rule's `create` (`create.validate.fix`) was never a candidate, only a callee at half
 * its caller. A nested function is part of its container's body — what a report says of the
 * container it may say of the helper — so each ranks at its container's share × `UNITS.nestedShare`
 * per level of nesting (a closure's own closures below it: a method with a dozen nested closures
 * would otherwise fill the listing at its share); the container keeps its own.
 */
function nestedSymbols(
  unnamed: ReadonlyArray<Omit<SearchSymbol, 'score'>>,
  containers: ReadonlyArray<{ symbol: Omit<SearchSymbol, 'score'>; share: number }>,
): Array<{ symbol: Omit<SearchSymbol, 'score'>; share: number }> {
  const out: Array<{ symbol: Omit<SearchSymbol, 'score'>; share: number }> = [];
  const units = unnamed.filter((s) => UNIT_KINDS.has(s.kind));
  for (const symbol of units) {
    const container = containers.find((c) => encloses(c.symbol, symbol));
    if (!container) continue;
    // Its depth below the container: 1 for a function defined in it, 2 for one defined in that.
    const level = 1 + units.filter((u) => encloses(container.symbol, u) && encloses(u, symbol)).length;
    out.push({ symbol, share: container.share * UNITS.nestedShare ** level });
  }
  return out;
}

/** True when `outer` strictly encloses `inner` (a method inside its class, a function inside a method). */
function encloses(outer: { startLine: number; endLine: number }, inner: { startLine: number; endLine: number }): boolean {
  return outer !== inner && outer.startLine <= inner.startLine && outer.endLine >= inner.endLine && (outer.startLine !== inner.startLine || outer.endLine !== inner.endLine);
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
