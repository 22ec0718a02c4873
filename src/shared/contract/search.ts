import { z } from 'zod';
import { SEARCH_MODES } from '../vocabulary';
import { request } from './define';
import type { RunStarted } from './runInfo';
import { oneOf } from './inputs';
import type { Reason } from './reasons';

/**
 * How to rank: `keyword` = BM25 over chunks and paths + graph signals; `semantic` = vector
 * similarity only; `hybrid` = reciprocal rank fusion of both, then graph signals (keyword when the
 * repository has no vectors for the embedder); `auto` = keyword, because `cra eval --mode hybrid`
 * measured hybrid with the built-in embedder as worse than keyword (docs/search.md).
 */
export type SearchMode = (typeof SEARCH_MODES)[number];

/** A symbol of a result file that matched, with its line range (1-based, inclusive). */
export interface SearchSymbol {
  name: string;
  kind: string;
  startLine: number;
  endLine: number;
}

/** One ranked file. */
export interface SearchResult {
  /** Repository-relative path. */
  path: string;
  /** Relative score; only the order within one result list is meaningful. */
  score: number;
  /** Best-matching symbols of the file, best first. */
  symbols: SearchSymbol[];
  /** A few lines of the best chunk that contain query terms (1-based line numbers). */
  lines: Array<{ line: number; text: string }>;
  /**
   * The line to open the file at: in the best chunk, the line with the most distinct query terms
   * (the first such line); the best definition's first line when no chunk matched; null when
   * nothing in the file points at a line (a neighbour-only result).
   */
  bestLine: number | null;
  /** Why the file is here, strongest first, as `{kind, detail}` (see `reasons.ts`; render with `formatReason`). */
  why: Reason[];
}

/** The answer of `search/query`. */
export interface SearchResponse {
  results: SearchResult[];
  /** The mode actually used (`auto` resolved; `keyword` when `hybrid` was asked but the repository has no vectors). */
  mode: Exclude<SearchMode, 'auto'>;
  tookMs: number;
  /** The lower-cased terms the query was searched for (identifier parts and whole identifiers), for highlighting. */
  terms: string[];
  /** For semantic and hybrid requests: how many chunks have a vector of the query's embedder. */
  vectorCoverage?: VectorCoverage;
  /** One line for people when the results are weaker than the mode promises (no or partial vectors, hybrid fell back to keyword). */
  note?: string;
}

/** Chunks with a vector of one embedder out of all chunks of a repository. */
export interface VectorCoverage {
  embedderId: string;
  vectors: number;
  chunks: number;
}

/** Vectors stored for one embedder in a repository. */
export interface EmbedderStatus {
  embedderId: string;
  dimensions: number;
  vectors: number;
  updatedAt: string | null;
}

/** What `search/status` reports for a repository. */
export interface SearchStatus {
  repoId: string;
  chunks: number;
  embedders: EmbedderStatus[];
  /** The embedder that `search/embed` and semantic/hybrid queries use. */
  defaultEmbedderId: string;
  /** Whether this engine embeds the repository by itself after each index now (app hosts with `[retrieval] embeddings` on). */
  autoEmbed: boolean;
  /** Whether an embedding run of this repository is going on. */
  embedding: boolean;
}

const repoId = z.string().min(1).max(200);

/** Code search over an indexed repository, and the background embedding job (run kind `embed`, phase `embeddings`). */
export const searchRequests = {
  'search/query': request<SearchResponse>()(
    'Rank the files of an indexed repository for a natural-language or identifier query; NOT_INDEXED before the first index.',
    () => z
      .object({
        repoId,
        query: z.string().max(2000),
        /** How many files; default `[retrieval] top_k` of the config (20). */
        limit: z.number().int().min(1).max(200).optional(),
        mode: oneOf('a search mode', SEARCH_MODES).default('auto'),
      })
      .strict(),
    { repoId: 'repo-does-not-exist', query: 'parse config file', limit: 10 },
  ),
  'search/embed': request<RunStarted<'embed'>>()(
    'Embed the chunks that have no vector yet for the default embedder (incremental, cancellable run of kind `embed`).',
    () => z.object({ repoId }).strict(),
    { repoId: 'repo-does-not-exist' },
  ),
  'search/status': request<SearchStatus>()(
    'How many chunks a repository has, how many vectors each embedder stored for it (coverage), and whether it is being embedded.',
    () => z.object({ repoId }).strict(),
    { repoId: 'repo-does-not-exist' },
  ),
} as const;
