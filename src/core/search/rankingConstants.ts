/**
 * Every weight, pool and threshold of search ranking, in one place: what each one does is said
 * beside it. A file ranks by keyword evidence (chunk BM25, path BM25, whole-file BM25), then graph
 * signals (definitions, import and co-change neighbours) and priors (tests, docs and config);
 * hybrid mode fuses it with the vector ranking. README, "Code search", describes the outcome;
 * `cra eval` measures a change to any of these.
 */

/**
 * BM25 column weights of `chunks_fts(path, symbol_names, identifiers, text)`: a term in a symbol
 * name says far more about a chunk than the same term in its body.
 */
export const CHUNK_WEIGHTS = { path: 2, symbolNames: 6, identifiers: 1.5, text: 1 } as const;

/** BM25 column weights of `paths_fts(path, path_tokens)`. */
export const PATH_WEIGHTS = { path: 1, pathTokens: 2 } as const;

/** The keyword ranking: how chunk and path matches become a file score. */
export const KEYWORD = {
  /** Chunks BM25 considers before aggregating per file. */
  chunkPool: 300,
  /** Paths BM25 considers. */
  pathPool: 100,
  /** Weight of the path ranking relative to the chunk ranking (both normalised to the best = 1). */
  pathShare: 0.35,
  /**
   * A file's chunk score is its best chunk's plus, for the next `nextChunks` chunks, their score ×
   * `nextChunkShare` × `nextChunkDecay`^(i − 1): more matching chunks help, a long file of weak
   * matches does not outrank one strong match.
   */
  nextChunks: 3,
  nextChunkShare: 0.25,
  nextChunkDecay: 0.6,
  /** A path or whole-file match is given as a reason from this share of the best such match. */
  reasonShare: 0.5,
} as const;

/** Frequent terms: they barely change BM25 and dominate its cost. */
export const COMMON_TERMS = {
  /** Terms in more than this share of all chunks are dropped when rarer terms remain. */
  share: 0.03,
  /** …but a term in fewer chunks than this is never considered common. */
  minDocs: 300,
} as const;

/** The whole-file BM25 ranking, fused late into the keyword ranking. */
export const FILE_BM25 = {
  /** BM25 parameters (the usual defaults). */
  k1: 1.2,
  b: 0.75,
  /** Distinct query words considered (a pasted stack trace should not cost a query per word). */
  maxTerms: 32,
  /** Share of the best final score that the best whole-file match adds. */
  share: 0.3,
} as const;

/** The reciprocal rank fusion constant of Cormack et al. (hybrid mode); it damps the weight of the very first ranks. */
export const RRF_K = 60;

/** Chunks the vector side considers before grouping per file. */
export const VECTOR_POOL = 200;

/** The graph signals (seeds: graph expansion with decay, depth 1) and the test prior. */
export const GRAPH = {
  /** Added for defining a symbol that the query names as an identifier (`getUserById`). */
  definitionIdentifier: 1.0,
  /** Added for defining a symbol named by a plain word of the query (`parse`). */
  definitionWord: 0.3,
  /** A neighbour receives parent score × decay × edge weight. */
  decay: 0.7,
  /** Edge weight of an import (either direction). */
  importWeight: 0.35,
  /** Edge weight of a co-change pair at or above `coChangeSaturation` commits. */
  coChangeWeight: 0.3,
  /** Co-change counts at or above this get the full co-change weight. */
  coChangeSaturation: 5,
  /** Fewest commits together for a co-change edge. */
  minCoChange: 2,
  /** How many top files count as strong hits, and the share of the best score they need. */
  strongHits: 5,
  strongShare: 0.4,
  /** Multiplier for test files when the query is not about tests. */
  testDemotion: 0.7,
  /**
   * A result that is only a neighbour (imported by, imports or changes with a hit, nothing of the
   * query in it) is listed only at this share of the best score or above: weaker ones padded the
   * list to `top_k` without helping (README, "Code search").
   */
  neighbourFloor: 0.15,
} as const;

/** The file-kind prior. */
export const KIND_PRIOR = {
  /** Score multiplier of documentation and configuration files the query does not ask for. */
  unwanted: 0.5,
} as const;
