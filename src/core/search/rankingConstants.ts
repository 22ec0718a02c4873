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
  share: 0.1,
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
  /** Words in more than this share of all chunks are left out of the whole-file ranking (`COMMON_TERMS.minDocs` applies too). */
  commonShare: 0.1,
  /** 1: the query's stop words (`the`, `of`, `when`) are left out of the whole-file ranking. */
  stopWords: 0,
  /**
   * 0: a file gains `share` × its BM25 score relative to the best; above 0: `share` × (rankK + 1) /
   * (rankK + its rank in the whole-file ranking), a rank fusion that ignores how far ahead the best file is.
   */
  rankK: 0,
  /** 1: only code files are ranked and counted (tests too when the query asks about tests); 0: every file with chunks. */
  codeOnly: 0,
  /** 1: joins the chunk and path evidence before the graph signals (its files can seed neighbours); 0: joins last. */
  early: 0,
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
  /** 1: a file gains the boosts of every neighbour kind (imported by, imports, changes with) added up; 0: only the largest. */
  sumKinds: 1,
  /** Multiplier for test files when the query is not about tests. */
  testDemotion: 0.4,
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
  unwanted: 0.25,
  /** 1: a tool name (`eslint`) asks for every config file, as before issue #12; 0: only for files named after it. */
  toolWordAsksConfig: 0,
} as const;

/** Files the query names (`nameMatch.ts`): "class-methods-use-this" ↔ class-methods-use-this.js. */
export const NAME_MATCH = {
  /** Share of the best score added to a file whose name the query spells out (before priors). */
  share: 1,
  /** Longest run of query words compared with file names. */
  maxWords: 6,
} as const;

// COMMON_TERMS.share, FILE_BM25.commonShare, GRAPH.testDemotion, KIND_PRIOR.unwanted and
// NAME_MATCH.share were chosen on the nine development repositories of issue #12 (bench/rankTune.ts,
// scripts/rank-loo.mjs); left out one repository at a time, the other eight chose this same setting
// for each of the nine (README, "Code search").

/** The tunable groups of this file, by name, for {@link overrideRanking}. */
const TUNABLE = { CHUNK_WEIGHTS, PATH_WEIGHTS, KEYWORD, COMMON_TERMS, FILE_BM25, GRAPH, KIND_PRIOR, NAME_MATCH } as const;

/** Partial values per group, e.g. `{ GRAPH: { testDemotion: 0.5 } }`. */
export type RankingOverrides = { [G in keyof typeof TUNABLE]?: { [K in keyof (typeof TUNABLE)[G]]?: number } };

/**
 * Tuning only (never set in the product): replace some of the constants above in this process, so
 * one index can be re-ranked under many settings without re-indexing (`bench/rankTune.ts`, issue
 * #12). Unknown groups, keys and non-numbers are an error naming them. Returns a function that
 * restores the previous values. The environment variable `CRA_RANKING_OVERRIDES` (the same object
 * as JSON) applies once at start-up, for a whole `cra eval` run under another setting.
 */
export function overrideRanking(overrides: RankingOverrides): () => void {
  const saved: Array<[Record<string, number>, string, number]> = [];
  for (const [group, values] of Object.entries(overrides)) {
    const target = (TUNABLE as Record<string, Record<string, number>>)[group];
    if (!target) throw new Error(`Unknown ranking group "${group}"; use one of ${Object.keys(TUNABLE).join(', ')}.`);
    for (const [key, value] of Object.entries(values ?? {})) {
      if (!(key in target)) throw new Error(`Unknown ranking constant ${group}.${key}; use one of ${Object.keys(target).join(', ')}.`);
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`Ranking constant ${group}.${key} must be a finite number, not ${JSON.stringify(value)}.`);
      saved.push([target, key, target[key]!]);
      target[key] = value;
    }
  }
  return () => {
    for (const [target, key, value] of saved.reverse()) target[key] = value;
  };
}

const fromEnvironment = typeof process === "undefined" ? undefined : process.env.CRA_RANKING_OVERRIDES;
if (fromEnvironment) {
  let parsed: RankingOverrides;
  try {
    parsed = JSON.parse(fromEnvironment) as RankingOverrides;
  } catch {
    throw new Error(`CRA_RANKING_OVERRIDES is not JSON: ${fromEnvironment}. Write it as {"GRAPH":{"testDemotion":0.5}}.`);
  }
  overrideRanking(parsed);
}
