// Defaults the hosts show in their help (`cra eval --help`) and the engine applies, in a module of
// their own without zod or engine code, so that showing them loads nothing at `cra` start.

/** Default cut-offs of recall@k and all-gold@k. */
export const DEFAULT_KS = [1, 5, 10];
/** Default number of mined commits. */
export const DEFAULT_COMMITS = 50;

/**
 * Defaults of the scope stage's settings (the config's [retrieval] keys fall back to these).
 *
 * 20 search seeds and 90 candidates were chosen leave-one-repository-out on the nine development
 * repositories (`cra eval --pipeline --judge oracle`, 30 commits each; grid 5–25 seeds × 60–100
 * candidates, most package recall on eight with a median of at most 80 scope judgments, measured
 * on the ninth): every fold chose them; pooled held-out package recall .975 against .947 with the
 * former 5 and 60, median 70 scope judgments.
 */
export const SCOPE_DEFAULTS = { searchSeeds: 20, maxCandidates: 90, minCoChange: 2 } as const;

/** Defaults of the precision stage's caps: symbols judged one by one in all, and per file. */
export const PRECISION_DEFAULTS = { maxSymbols: 150, maxSymbolsPerFile: 40 } as const;
