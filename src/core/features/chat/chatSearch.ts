import type { ChatTraceRound, RouteMode } from '../../../shared/contract/chat';
import type { SearchResult } from '../../../shared/contract/search';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { throwIfAborted } from '../../platform/runtime/runs';
import type { Embedder } from '../../knowledge/search/embedder';
import { reciprocalRankFusion } from '../../knowledge/search/fusion';
import { roundScore } from '../../knowledge/search/details';
import { searchWithMode } from '../../knowledge/search/search';
import { comparePaths } from './pathOrder';
import type { PipelineSettings } from './pipeline';

/*
 * The search of one retrieval round (docs/design.md, Retrieval modes and hybrid search): BM25 is
 * our keyword search; SEMANTIC the vectors; SEMANTIC_RERANK a wider vector pool
 * re-ranked by keyword evidence; HYBRID keyword and vectors fused by RRF or by distribution-based
 * score fusion. Several phrasings of a question are searched each and fused by RRF. With no vectors
 * for the embedder a vector mode runs as keyword search and the round's notes say so — never an error.
 */

/** Weight of the vector similarity in SEMANTIC_RERANK (the keyword share is the rest). */
export const RERANK_VECTOR_WEIGHT = 0.6;

/** One ranked list: a path's score, best first. */
export type Ranked = Array<{ path: string; score: number }>;

/**
 * Distribution-based score fusion: each list's scores are scaled to 0..1 between mean − 3σ and
 * mean + 3σ of that list (clamped), then summed with the list's weight; a path missing from a list
 * gets 0 there. Returns best first (ties by path).
 */
export function distributionFusion(lists: ReadonlyArray<{ weight: number; ranked: Ranked }>): Ranked {
  const fused = new Map<string, number>();
  for (const { weight, ranked } of lists) {
    if (ranked.length === 0) continue;
    const mean = ranked.reduce((n, r) => n + r.score, 0) / ranked.length;
    const sd = Math.sqrt(ranked.reduce((n, r) => n + (r.score - mean) ** 2, 0) / ranked.length);
    const lo = mean - 3 * sd;
    const hi = mean + 3 * sd;
    for (const r of ranked) {
      const scaled = hi > lo ? Math.min(1, Math.max(0, (r.score - lo) / (hi - lo))) : 1;
      fused.set(r.path, (fused.get(r.path) ?? 0) + weight * scaled);
    }
  }
  return [...fused.entries()].map(([path, score]) => ({ path, score })).sort((a, b) => b.score - a.score || comparePaths(a.path, b.path));
}

/**
 * Re-rank a vector pool by keyword evidence: final = w × similarity/best + (1 − w) × keyword/best,
 * keyword 0 for a candidate keyword search did not find. Only candidates of the pool are ranked.
 */
export function rerankByKeywords(pool: Ranked, keyword: Ranked, vectorWeight = RERANK_VECTOR_WEIGHT): Ranked {
  const bestVector = Math.max(...pool.map((r) => r.score), 1e-9);
  const bestKeyword = Math.max(...keyword.map((r) => r.score), 1e-9);
  const kw = new Map(keyword.map((r) => [r.path, r.score / bestKeyword]));
  return pool
    .map((r) => ({ path: r.path, score: vectorWeight * (r.score / bestVector) + (1 - vectorWeight) * (kw.get(r.path) ?? 0) }))
    .sort((a, b) => b.score - a.score || comparePaths(a.path, b.path));
}

/** Options of {@link searchRound}. */
export interface SearchRoundOptions {
  mode: RouteMode;
  /** The route's query first, then any expanded phrasings. */
  queries: readonly string[];
  retrieval: PipelineSettings['retrieval'];
  embedder: Embedder;
  /** Seeds wanted. */
  limit: number;
  signal?: AbortSignal;
}

/** What a round's search found: results best first (scores of the chosen ranking), and its trace part. */
export interface SearchRoundResult {
  results: SearchResult[];
  searchMode: ChatTraceRound['searchMode'];
  fusion?: 'rrf' | 'dist';
  notes: string[];
}

const toRanked = (results: readonly SearchResult[]): Ranked => results.map((r) => ({ path: r.path, score: r.score }));

/** Run one round's search for every query and fuse the queries' rankings. */
export async function searchRound(kb: KnowledgeBase, options: SearchRoundOptions): Promise<SearchRoundResult> {
  const notes: string[] = [];
  if (options.mode === 'DIRECT') return { results: [], searchMode: 'none', notes };
  const hasVectors = options.mode !== 'BM25' && kb.vectorCount(options.embedder.id) > 0;
  let searchMode: SearchRoundResult['searchMode'] = 'keyword';
  if (options.mode !== 'BM25') {
    if (!hasVectors) {
      notes.push(`${options.mode} needs vectors, and this index has none for ${options.embedder.id}: keyword search ran instead (Embed now on the Repositories page, or cra embed).`);
    } else searchMode = options.mode === 'SEMANTIC' ? 'semantic' : options.mode === 'SEMANTIC_RERANK' ? 'semantic_rerank' : 'hybrid';
  }
  const perQuery: SearchResult[][] = [];
  for (const query of options.queries) {
    throwIfAborted(options.signal);
    try {
      perQuery.push(await searchOne(kb, query, searchMode, options));
    } catch (error) {
      // The embedding model can be missing or down: keyword search still answers.
      if (options.signal?.aborted || searchMode === 'keyword') throw error;
      notes.push(`${options.mode} could not embed the query (${error instanceof Error ? error.message : String(error)}): keyword search ran instead.`);
      searchMode = 'keyword';
      perQuery.push(await searchOne(kb, query, searchMode, options));
    }
  }
  throwIfAborted(options.signal);
  const byPath = new Map<string, SearchResult>();
  for (const list of perQuery) for (const r of list) if (!byPath.has(r.path)) byPath.set(r.path, r);
  const ranked: Ranked =
    perQuery.length === 1
      ? toRanked(perQuery[0]!)
      : (() => {
          const fused = reciprocalRankFusion(perQuery.map((list) => list.map((r) => r.path)));
          const best = fused[0]?.score ?? 1;
          return fused.map(({ key, score }) => ({ path: key, score: score / best }));
        })();
  const results = ranked.slice(0, options.limit).map((r) => ({ ...byPath.get(r.path)!, score: r.score }));
  const fusion = searchMode === 'hybrid' ? options.retrieval.fusion : undefined;
  return { results, searchMode, ...(fusion ? { fusion } : {}), notes };
}

async function searchOne(kb: KnowledgeBase, query: string, searchMode: SearchRoundResult['searchMode'], options: SearchRoundOptions): Promise<SearchResult[]> {
  const search = (mode: 'keyword' | 'semantic' | 'hybrid', limit: number) => searchWithMode(kb, query, { mode, limit, embedder: options.embedder, signal: options.signal }).then((o) => o.results);
  if (searchMode === 'keyword' || searchMode === 'semantic') return search(searchMode, options.limit);
  if (searchMode === 'hybrid' && options.retrieval.fusion === 'rrf') return search('hybrid', options.limit);
  const wide = Math.max(options.retrieval.widen, options.limit * 3);
  const [vector, keyword] = [await search('semantic', wide), await search('keyword', wide)];
  const all = new Map([...keyword, ...vector].map((r) => [r.path, r]));
  const ranked =
    searchMode === 'semantic_rerank'
      ? rerankByKeywords(toRanked(vector), toRanked(keyword))
      : distributionFusion([
          { weight: options.retrieval.weights[0], ranked: toRanked(keyword) },
          { weight: options.retrieval.weights[1], ranked: toRanked(vector) },
        ]);
  return ranked.slice(0, options.limit).map((r) => ({ ...all.get(r.path)!, score: roundScore(r.score, 3) }));
}
