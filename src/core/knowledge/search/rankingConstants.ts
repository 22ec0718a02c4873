/**
 * Every weight, pool and threshold of search ranking, in one place: what each one does is said
 * beside it. A file ranks by keyword evidence (chunk BM25, path BM25, whole-file BM25), then graph
 * signals (definitions, import and co-change neighbours) and priors (tests, docs and config);
 * hybrid mode fuses it with the vector ranking. docs/search.md, describes the outcome;
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
  /**
   * Distinct query words considered, the first of the text (a pasted stack trace should not cost
   * a lookup per word); per-file counts are cached per connection, so frequent words cost once.
   */
  maxTerms: 64,
  /** Share of the best final score that the best whole-file match adds. */
  share: 0.6,
  /**
   * Words in more than this share of all chunks are left out of the whole-file ranking
   * (`COMMON_TERMS.minDocs` applies too). 1: none is: BM25's IDF already weighs a frequent word
   * little, and the short words naming a subsystem (`mssql`, `schema`, `join`) are often frequent
   * and what tells the file apart (issue #12).
   */
  commonShare: 1,
  /** 1: the query's stop words (`the`, `of`, `when`) are left out of the whole-file ranking. */
  stopWords: 1,
  /**
   * 1: only code files are ranked and counted (tests too when the query asks about tests); 0: every
   * file with chunks. Thousands of small test files set the mean length, so every real source file
   * looked long and lost its matches to length normalisation.
   */
  codeOnly: 1,
} as const;

/**
 * The history ranker (`history.ts`): files changed by past commits whose messages read like the
 * query, fused late like whole-file BM25.
 */
export const HISTORY = {
  /** Share of the best final score that the best history match adds; 0 turns the ranker off. */
  share: 0.3,
  /** Best-matching past commits considered. */
  commits: 15,
  /** Commits that changed more paths than this are left out (mass refactors, releases). */
  maxFiles: 50,
  /** A commit's weight per file is divided by (paths it changed)^sizePower. */
  sizePower: 1,
  /** Distinct query words matched against the messages, the first of the text. */
  maxTerms: 64,
} as const;

/** The reciprocal rank fusion constant of Cormack et al. (hybrid mode); it damps the weight of the very first ranks. */
export const RRF_K = 60;

/** Chunks the vector side considers before grouping per file. */
export const VECTOR_POOL = 200;

/** The graph signals (docs/design.md, Graph expansion: with decay, depth 1) and the test prior. */
export const GRAPH = {
  /** Added for defining a symbol that the query names as an identifier (`getUserById`). */
  definitionIdentifier: 1.0,
  /** Added for defining a symbol named by a plain word of the query (`parse`). */
  definitionWord: 0.3,
  /** A neighbour receives parent score × decay × edge weight. */
  decay: 0.35,
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
  testDemotion: 0.4,
  /**
   * A result that is only a neighbour (imported by, imports or changes with a hit, nothing of the
   * query in it) is listed only at this share of the best score before whole-file BM25 or above:
   * weaker ones padded the list to `top_k` without helping (docs/search.md). 0.15 until
   * `decay` went from 0.7 to 0.35 (issue #12): the floor now keeps an import neighbour of the
   * best hit, as it did; R@5 and R@10 were the same with no floor at all on every development repository.
   */
  neighbourFloor: 0.1,
} as const;

/**
 * The symbol-graph expansion (`expand.ts`, issue #27 item 3): files reached from the symbols the
 * query names, or the best chunks of the top files, by calls, base classes, subclasses and
 * overrides. A file receives seed value × share × decay^depth × relation weight / (1 + ln fan-out).
 * Measured (docs/evaluation.md, sixth round; bench/rankTune.ts over the 320 commit tasks of eight
 * development repositories and the issue-style tasks): raise-only at share 1 leaves every file-level
 * figure as it was and was the leave-one-repository-out choice for all eight; added (raiseOnly 0) it
 * cost R@1 (starlette .577 → .527) and R@5 + R@10 (sqlalchemy −.013, typeorm −.014); share 2 and 3
 * cost typeorm R@5 + R@10 .012. decay and the relation weights were not tuned (decay is the import
 * neighbours' GRAPH.decay; the weights order the relations by how directly they explain a fix).
 */
export const EXPAND = {
  /** Overall weight of the expansion; 0 turns it off. */
  share: 1,
  /** Per edge walked (a base two levels up gets decay²). */
  decay: 0.35,
  /** Relation weights: a callee of a named function, a base class, a subclass, an override. */
  callee: 0.5,
  base: 0.7,
  subclass: 0.3,
  override: 0.5,
  /** 1: a reached file's score becomes the walk's value when that is more (direct hits keep their order); 0: the value is added. */
  raiseOnly: 1,
  /** Levels of base classes walked up (the MRO). */
  baseDepth: 3,
  /** Seed weight of a definition the query names (× its file's score). */
  namedSeed: 1,
  /** Seed weight of a symbol in the best chunk of a top file (× its file's score); 0: named symbols only. */
  topFileSeed: 0.5,
  /** Top files whose best chunk seeds the walk. */
  topFiles: 3,
  /** An unresolved reference is followed by name only when at most this many files define the name. */
  maxNameFiles: 2,
  /** Most seeds, and most rows per read of the walk. */
  maxSeeds: 32,
  maxRows: 400,
} as const;

/**
 * Ranking of issue-shaped text (`ParsedQuery.issueShaped`: a code block, a traceback, a session or
 * pasted output in it, or prose past the cap; issueText.ts). A bug report names the symptom and the
 * API its author called, and the code to change is often what that API calls or inherits; a commit
 * message names the code it changed. So for such a text only, the symbol-graph walk's value is added
 * to a reached file's score (a file the text matches and the walk reaches moves up), where for any
 * other text it only raises a file to that value (EXPAND.raiseOnly). Measured (docs/evaluation.md,
 * eighth round; bench/rankTune.ts over the 215 issue tasks of nine development repositories and
 * the 360 commit tasks): added at share 0.25, file Acc@1/5/10 .541/.830/.896 → .547/.835/.896, no
 * task worse within rank 10; share 0.5 and 1 gained less (.541/.835/.896); left out one repository
 * at a time the other eight chose share 0.25 for eight of nine (werkzeug's chose 1), and no held-out
 * repository got worse. Commit tasks: R@5 and R@10 identical on all nine repositories (five of the
 * 360 are issue-shaped; one gold file moved, 18 → 19). Also measured for issue-shaped text and not
 * adopted: co-change weight ×0.5–3, whole-file BM25 b 0.3–0.9 and share 0.4–1, history share 0–1,
 * the definition bonus ×0–1.5 (gains at one rank cost another; none passed leave-one-out). And such a
 * text does not ask for tests by saying "test" (`testsAsked`, tenth round), and its title's words
 * count again (`titleText`, twelfth round).
 */
export const ISSUE_SHAPED = {
  /** 1: the walk's value is added to a reached file's score (as EXPAND.raiseOnly 0); 0: as EXPAND.raiseOnly. */
  expandAdd: 1,
  /** EXPAND.share for issue-shaped text. */
  expandShare: 0.25,
  /**
   * 0: issue-shaped text never asks for tests, so test files keep `GRAPH.testDemotion` whatever
   * words it uses; 1: a word `test` / `tests` / `testing` / `spec` anywhere in it asks, as in any
   * other text. A bug report is about the code: its "test" is the reporter's (`I wrote a test`,
   * `test.js`, `/tmp/test.py`, `our tests started failing`), not the project's test suite, and 30 of
   * the 154 issue-shaped development tasks say it. Measured (docs/evaluation.md, tenth round): file
   * Acc@1/5/10 .547/.835/.896 → .562/.840/.907 on the 215 issue tasks, 12 tasks better and none
   * worse; chosen left out one repository at a time in all nine folds; the words of the prose only
   * (not the pasted code and output) asking: .547/.835/.904. Commit tasks: identical.
   */
  testsAsked: 0,
  /**
   * Share of the title's chunk ranking (`ParsedQuery.title`: the first line of an issue-shaped text,
   * parsed alone) added to the keyword score of the files the whole text matches; 0: none. A bug
   * report's title is its author's summary and names the part of the project it is about
   * (`Session cookie triggers failure…`, `wrong indent in else-if`, `str(request.headers) is
   * empty`), where its body's pasted traceback, example and output name the reporter's code and
   * every frame on the way. Measured (docs/evaluation.md, twelfth round; bench/rankTune.ts over the
   * 215 issue tasks): file Acc@1/5/10 .562/.840/.907 → .580/.854/.920 at 0.7 (0.35 / 0.5 / 1 / 1.5:
   * .568/.843/.917, .577/.846/.917, .580/.849/.920, .580/.849/.920); chosen left out one repository
   * at a time in all nine folds, no held-out repository worse; function Acc@10 .610 → .605 (one
   * typeorm task). The title's path ranking (0.15 / 0.35 / 0.7) was measured and not adopted: it
   * lowered sqlalchemy Acc@5 and function Acc@10. Commit tasks: identical (a commit message is not
   * issue-shaped, and the five that are rank as before).
   */
  titleText: 0.7,
} as const;

/**
 * The symbols of a result (`details.ts`), which are also the function-level ranking (issue #27,
 * item 4; eval/functionLevel.ts `unitRanking`).
 */
export const UNITS = {
  /**
   * Symbols listed per result. 8 (was 5): function-level Acc@10 on the commit tasks of the
   * development repositories rose with it (3 / 5 / 8 listed: macro .425 / .504 / .529 at
   * enclosingShare 1; docs/evaluation.md, sixth round).
   */
  symbols: 8,
  /** Matching chunks of a file whose symbols are ranked (12 measured the same as 8). */
  chunks: 8,
  /**
   * A class listed because a chunk inside it matched ranks at this share of the chunk. 0.75 (was 1,
   * when the innermost symbol of a Python chunk was taken to be its last listed, often the class):
   * issue-set function Acc@10 .579 at 0.75, .576 at 0.5, .570 at 1 (docs/evaluation.md, eighth round;
   * figures of this block: the 215 issue tasks' replay, the other constants as shipped but 16 deep symbols).
   */
  enclosingShare: 0.75,
  /**
   * The best files whose own chunks are all ranked for their symbols, not only those of the search's
   * pool (0: none): the pool holds a few of a long file's chunks, often not the method's. 3: issue-set
   * function Acc@10 .541 at 0, .576 at 1, .579 at 3 and 5.
   */
  deepFiles: 3,
  /** Chunks of such a file ranked, from the best `deepPool` chunks of the repository (read once per search). */
  deepChunks: 30,
  deepPool: 3000,
  /** Symbols listed for such a file (12 / 16 / 24: .579 / .579 / .585; the other eight's choice for 7 of 9 held out). */
  deepSymbols: 24,
  /** A definition named by a plain word of the query (GRAPH.definitionWord), not an identifier, ranks at this share of its file (0.5: .583, chosen held out for eslint and werkzeug only). */
  namedWordShare: 1,
  /**
   * 1: a chunk's symbols are those whose lines overlap it, shared by the query terms on their lines
   * (details.ts `chunkSymbols`); 0: every symbol the chunk lists at its whole share (a part of a long
   * function listed all its inner functions alike). Off: .542 against .579.
   */
  lineShares: 1,
  /** The share of a chunk's innermost symbol with no query term on its lines, when another has some (0.1 / 0.3 / 0.6: .579 / .579 / .585). */
  termFloor: 0.3,
  /**
   * A function or class defined inside a chunk's innermost symbol, which the chunk does not name,
   * ranks at that symbol's share × nestedShare per level of nesting (details.ts `nestedSymbols`; 0:
   * not listed from its chunk, only as a callee). Issue-set function Acc@10 (macro of nine): 0 .593,
   * 0.8 .602, 0.9 and 1 .610 (one level only at 0.9: .605); on the commit tasks of main's
   * `--commits 20` reports, function R@10 macro 0.9 .653, 1 .648 against .652 without
   * (docs/evaluation.md, tenth round).
   */
  nestedShare: 0.9,
  /** Symbols read per chunk: those on its lines, named by it or defined inside them. */
  overlapLimit: 200,
  /**
   * A function or class of the same file that one of a file's best units calls ranks at this share
   * of its caller (0: not listed): the private helper a named public method hands its work to. 0.5:
   * .579; 0 / 0.3 / 0.8: .561 / .565 / .564.
   */
  calleeShare: 0.5,
  /** 1: a callee of several of the best units ranks at the sum of their shares (at most 1); 0: at the best one's (.570). */
  calleeSum: 1,
  /** The best units of a file whose callees are listed. */
  calleeCallers: 3,
  /** The best files whose units' callees are listed. */
  calleeFiles: 3,
  /**
   * In the function ranking (eval/functionLevel.ts) a unit scores its score × fileDecay ** its file's
   * rank (0-based), so a lower file's symbol needs a better match to pass the first file's: the gold
   * file is first for most tasks. 0.8: .579; 0.85 / 0.7 / 0.6: .579 / .574 / .556; without it (1),
   * measured before the other constants were settled: .584 against .621 on the eight repositories but sqlalchemy.
   */
  fileDecay: 0.8,
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

// COMMON_TERMS.share, GRAPH.testDemotion, KIND_PRIOR.unwanted and NAME_MATCH.share were chosen on
// the nine development repositories of issue #12 (bench/rankTune.ts, scripts/rank-loo.mjs); left
// out one repository at a time, the other eight chose this same setting for each of the nine
// (docs/search.md). FILE_BM25 (maxTerms, share, commonShare, stopWords, codeOnly) and
// GRAPH.decay were chosen the same way later in issue #12: the other eight chose this setting for
// six of the nine held-out repositories (networkx's chose decay 0.5, sqlalchemy's decay 0.7, jinja's
// share 0.8 with decay 0.5). HISTORY (share, sizePower, commits) was tuned on all nine over 16
// settings (share 0.2–0.6, sizePower 0.5 / 1, commits 15 / 30): R@5 + R@10 is flat within ±0.003
// from share 0.2 to 0.45, where 0.3 keeps R@1 and MRR of the small repositories (0.45: R@1 .551 →
// .514); the other eight's choice varies per held-out repository, and held out the ranker lifts
// macro R@5 by .021 (.834 → .855; up on four, level on three, down on werkzeug and networkx) with
// R@10 level (.913 → .912) — docs/search.md.

/** The tunable groups of this file, by name, for {@link overrideRanking}. */
const TUNABLE = { CHUNK_WEIGHTS, PATH_WEIGHTS, KEYWORD, COMMON_TERMS, FILE_BM25, HISTORY, GRAPH, EXPAND, ISSUE_SHAPED, UNITS, KIND_PRIOR, NAME_MATCH } as const;

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
