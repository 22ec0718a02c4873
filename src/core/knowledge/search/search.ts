import { isNeighbourReason } from '../../../shared/contract/reasons';
import type { SearchMode, SearchResult, VectorCoverage } from '../../../shared/contract/search';
import type { Db } from '../../platform/db/open';
import { KnowledgeBase } from '../kb/knowledgeBase';
import type { SearchIndex } from '../kb/searchIndex';
import { throwIfAborted } from '../../platform/runtime/runs';
import { vectorCoverage } from './coverage';
import { describeResults } from './details';
import { createDefaultEmbedder, wordsForEmbedding, type Embedder } from './embedder';
import { reciprocalRankFusion } from './fusion';
import { demotedKind, kindPrior } from './fileKinds';
import { applyExpansion } from './expand';
import { applyFileBm25 } from './fileBm25';
import { applyHistory } from './history';
import { applyDefinitions, applyNeighbours, applyPrior, testPrior, type DefinitionHit } from './graph';
import { keywordFileRanking, type FileHit } from './keyword';
import { applyNamedFiles } from './nameMatch';
import { parseQuery, type ParsedQuery } from './query';
import { GRAPH, VECTOR_POOL } from './rankingConstants';
import type { VectorStore } from './vectorStore';

/**
 * A curated index: a KnowledgeBase, or a connection (its KnowledgeBase is used, one per connection,
 * so statements are prepared once either way).
 */
export type SearchTarget = Db | KnowledgeBase;

/** Options of {@link searchRepository}. */
export interface SearchOptions {
  /** Files to return (default 20). */
  limit?: number;
  signal?: AbortSignal;
  /** Default `auto`, which is keyword search (vectors serve only an explicit `semantic` or `hybrid`). */
  mode?: SearchMode;
  /** Embedder for the query vector (default: the embedded Universal Sentence Encoder lite). */
  embedder?: Embedder;
}

/** Results plus the mode actually used and the terms searched for. */
export interface SearchOutcome {
  results: SearchResult[];
  mode: Exclude<SearchMode, 'auto'>;
  /** For semantic and hybrid requests: the vectors the vector side could see. */
  vectorCoverage?: VectorCoverage;
  /** The query's lower-cased terms, for highlighting. */
  terms: string[];
}

let defaultEmbedder: Embedder | undefined;

/** The process-wide default embedder (its model loads on first use). */
export function sharedDefaultEmbedder(): Embedder {
  defaultEmbedder ??= createDefaultEmbedder();
  return defaultEmbedder;
}

/**
 * Rank the files of an indexed repository for a query. Never throws on odd input (FTS syntax is
 * always quoted); an empty query gives no results. `semantic` and `hybrid` need vectors (see
 * `embedRepository`); without them `semantic` returns nothing and `hybrid` equals `keyword`.
 */
export async function searchRepository(target: SearchTarget, query: string, options: SearchOptions = {}): Promise<SearchResult[]> {
  return (await searchWithMode(target, query, options)).results;
}

/** {@link searchRepository}, also telling which mode `auto` resolved to. */
export async function searchWithMode(target: SearchTarget, query: string, options: SearchOptions = {}): Promise<SearchOutcome> {
  const kb = KnowledgeBase.of(target);
  const index = kb.searchIndex;
  const limit = options.limit ?? 20;
  const parsed = parseQuery(query);
  const embedder = options.embedder ?? sharedDefaultEmbedder();
  // `auto` is keyword search: `cra eval --mode hybrid` measured fusion with the default embedder as
  // worse than keyword on both development repositories (docs/search.md), so vectors serve
  // only an explicit semantic or hybrid request.
  const requested = options.mode ?? 'auto';
  const store = requested === 'keyword' || requested === 'auto' ? undefined : kb.vectorStore(embedder.id);
  const hasVectors = store !== undefined && store.count() > 0;
  // Hybrid without vectors is keyword search; say so rather than pretend a fusion happened.
  const mode = requested === 'auto' || (requested === 'hybrid' && !hasVectors) ? 'keyword' : requested;
  const coverage = requested === 'semantic' || requested === 'hybrid' ? { vectorCoverage: vectorCoverage(index, embedder.id, store) } : {};
  throwIfAborted(options.signal);
  const terms = parsed.terms;
  if (parsed.raw === '') return { results: [], mode, terms, ...coverage };

  let files: Map<number, FileHit>;
  if (mode === 'keyword') {
    files = keywordFileRanking(index, parsed);
  } else {
    const vectorFiles = store && hasVectors ? await vectorFileRanking(index, store, embedder, parsed, options.signal) : new Map<number, FileHit>();
    if (mode === 'semantic') return { results: finish(index, vectorFiles, parsed, new Map(), limit, undefined, false), mode, terms, ...coverage };
    files = fuse(keywordFileRanking(index, parsed), vectorFiles);
  }
  throwIfAborted(options.signal);
  const definitions = applyDefinitions(index, parsed, files);
  const named = applyNamedFiles(index, parsed, files);
  applyNeighbours(index, files, (id) => index.pathOf(id));
  applyExpansion(index, files, definitions, parsed.issueShaped);
  // Priors last: demoted tests and docs still pass their neighbours a boost (tests import the code
  // they check; docs change together with the code they describe).
  const tests = testPrior(index, parsed);
  const kinds = kindPrior(index, parsed);
  const prior = (fileId: number) => tests(fileId) * kinds(fileId);
  applyPrior(files, prior);
  // The neighbour floor is measured against the ranking the neighbours were drawn from: whole-file
  // BM25 below raises the best score, not what a neighbour is worth beside its hit.
  const graphTop = Math.max(0, ...[...files.values()].map((f) => f.score));
  // Whole-file BM25 joins last, as a ranker of its own beside the chunk evidence and the graph.
  applyFileBm25(kb, parsed, files, prior, named);
  applyHistory(kb, parsed, files, prior);
  return { results: finish(index, files, parsed, definitions, limit, graphTop), mode, terms, ...coverage };
}

function finish(index: SearchIndex, files: Map<number, FileHit>, parsed: ParsedQuery, definitions: Map<number, DefinitionHit[]>, limit: number, floorBase?: number, priors = true): SearchResult[] {
  const ranked = withoutWeakNeighbours([...files.values()].filter((f) => f.score > 0).sort((a, b) => b.score - a.score || a.fileId - b.fileId), floorBase).slice(0, limit);
  // Say why a file ranks below the project's code (after the neighbour floor, which reads the other reasons).
  const demoted = priors ? demotedKind(index, parsed) : () => undefined;
  for (const file of ranked) {
    const kind = demoted(file.fileId);
    if (kind) file.why.push({ kind: 'file-class', detail: { class: kind } });
  }
  return describeResults(index, ranked, parsed, definitions);
}

/**
 * Drop the files that are only graph neighbours of hits and score below `GRAPH.neighbourFloor` of
 * `base` (default: the best file's score); the order of the others is unchanged. `ranked` is
 * sorted best first.
 */
export function withoutWeakNeighbours<T extends Pick<FileHit, 'score' | 'why'>>(ranked: readonly T[], base = ranked[0]?.score ?? 0): T[] {
  const floor = base * GRAPH.neighbourFloor;
  return ranked.filter((f) => f.score >= floor || f.why.length === 0 || !f.why.every(isNeighbourReason));
}

/** The vector file ranking: the best chunk similarity per file. */
async function vectorFileRanking(index: SearchIndex, store: VectorStore, embedder: Embedder, parsed: ParsedQuery, signal?: AbortSignal): Promise<Map<number, FileHit>> {
  const [vector] = await embedder.embed([wordsForEmbedding(parsed.text)], signal);
  const nearest = store.nearest(vector!, VECTOR_POOL);
  const files = new Map<number, FileHit>();
  for (const { chunkId, similarity } of nearest) {
    const fileId = index.fileOfChunk(chunkId);
    if (fileId === undefined) continue;
    const file = files.get(fileId) ?? { fileId, score: similarity, chunks: [], why: [{ kind: 'semantic-match', detail: { similarity: Math.round(similarity * 1000) / 1000 } }] };
    file.chunks.push({ chunkId, fileId, score: similarity });
    files.set(fileId, file);
  }
  return files;
}

/** Reciprocal rank fusion of the keyword and vector file rankings; fused scores scaled to best = 1. */
export function fuse(keyword: Map<number, FileHit>, vector: Map<number, FileHit>): Map<number, FileHit> {
  const order = (m: Map<number, FileHit>) => [...m.values()].sort((a, b) => b.score - a.score).map((f) => f.fileId);
  const fused = reciprocalRankFusion([order(keyword), order(vector)]);
  const best = fused[0]?.score ?? 1;
  const out = new Map<number, FileHit>();
  for (const { key, score } of fused) {
    const k = keyword.get(key);
    const v = vector.get(key);
    out.set(key, { fileId: key, score: score / best, chunks: [...(k?.chunks ?? []), ...(v?.chunks ?? [])], why: [...(k?.why ?? []), ...(v?.why ?? [])] });
  }
  return out;
}
