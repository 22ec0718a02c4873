// The evaluation's defaults, apart from evaluate.ts so that the CLI can show them in its help
// without loading the evaluation code.

/** Default cut-offs of recall@k and all-gold@k. */
export const DEFAULT_KS = [1, 5, 10];
/** Default number of mined commits. */
export const DEFAULT_COMMITS = 50;
