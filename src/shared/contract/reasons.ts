import { z } from 'zod';

/*
 * Why a file (or a symbol, or a line) is in front of the user or a model: a reason is
 * `{kind, detail}` with a detail typed per kind. Search produces the first group today; retrieval
 * and chat will produce the reserved group. Hosts render reasons with `formatReason` and never parse
 * English back, so a new signal is a new kind here, not a new sentence.
 */

/**
 * One reason, by kind: its ~30 schemas are built on first use ({@link reasonSchema}); a command
 * that checks no reason (`cra search`, `cra chat`) never builds them (issue #25).
 */
function buildReasonSchema() {
  const path = z.string().min(1);
  /** A 0..1 share of the best score of one ranker (1 = as good as that ranker's best file). */
  const share = z.number().min(0).max(1);
  return z.discriminatedUnion('kind', [
    // Produced by search.
    /** BM25 over the file's chunks; `score` is its share of the best file's chunk score. */
    z.object({ kind: z.literal('text-match'), detail: z.object({ score: share }) }),
    /** BM25 over paths and path tokens (only a strong share: ≥ 0.5 of the best path). */
    z.object({ kind: z.literal('path-match'), detail: z.object({ score: share }) }),
    /** The whole-file BM25 ranker (only a strong share: ≥ 0.5 of the best file). */
    z.object({ kind: z.literal('file-text-match'), detail: z.object({ score: share }) }),
    /**
     * Past commits whose messages read like the query changed the file (`commits` of them; `score`: its
     * share of the best such file); `sha` and `message` (subject line) are the best matching one.
     */
    z.object({ kind: z.literal('past-commits'), detail: z.object({ score: share, commits: z.number().int().min(1), sha: z.string().min(1), message: z.string() }) }),
    /** Vector similarity of the file's best chunk to the query (cosine, −1..1). */
    z.object({ kind: z.literal('semantic-match'), detail: z.object({ similarity: z.number().min(-1).max(1) }) }),
    /** The file defines a symbol the query names. */
    z.object({ kind: z.literal('definition'), detail: z.object({ symbol: z.string().min(1) }) }),
    /** The file is imported by a strong hit (`path`). */
    z.object({ kind: z.literal('imported-by'), detail: z.object({ path }) }),
    /** The file imports a strong hit (`path`). */
    z.object({ kind: z.literal('imports'), detail: z.object({ path }) }),
    /** The file changed together with a strong hit (`path`) in `commits` commits. */
    z.object({ kind: z.literal('co-change'), detail: z.object({ path, commits: z.number().int().min(1) }) }),
    /**
     * Reached from a symbol the query names or a top hit defines (`from`, in file `path`) along the
     * symbol graph: a symbol of this file (`symbol`) is called by it (`called-by`), is a base class of
     * it (`base-class`, any depth of the hierarchy), a subclass of it (`subclass`), or a method it
     * overrides or that overrides it (`override`).
     */
    z.object({ kind: z.literal('symbol-graph'), detail: z.object({ relation: z.enum(['called-by', 'base-class', 'subclass', 'override']), symbol: z.string().min(1), from: z.string().min(1), path }) }),
    // Reserved for retrieval and chat (no producer yet).
    /** The task text names this file or symbol (`text` is the words that did); search gives it for file names. */
    z.object({ kind: z.literal('named-in-task'), detail: z.object({ text: z.string().min(1) }) }),
    /** Ranked below the project's own code: a file of this class the task does not ask for. */
    z.object({ kind: z.literal('file-class'), detail: z.object({ class: z.enum(['docs', 'config', 'vendored', 'generated', 'declarations', 'examples']) }) }),
    /** Reserved (retrieval): a search hit that seeded graph expansion, at `rank` (1-based). */
    z.object({ kind: z.literal('seed'), detail: z.object({ rank: z.number().int().min(1) }) }),
    /** Reserved (retrieval, plans): a plan lists the file; `step` is the step's id when one does. */
    z.object({ kind: z.literal('plan-file'), detail: z.object({ step: z.string().optional() }) }),
    /** Reserved (retrieval): a model judged the file relevant; `probability` is P(yes) when known. */
    z.object({ kind: z.literal('judged-relevant'), detail: z.object({ model: z.string().min(1), probability: z.number().min(0).max(1).optional() }) }),
    /** Reserved (chat): an answer cites these lines (1-based, inclusive). */
    z.object({ kind: z.literal('cited'), detail: z.object({ startLine: z.number().int().min(1), endLine: z.number().int().min(1) }) }),
    // Produced by retrieval's binary judgments.
    /** A model judged the item not relevant; `probability` is P(yes) when known. */
    z.object({ kind: z.literal('judged-irrelevant'), detail: z.object({ model: z.string().min(1), probability: z.number().min(0).max(1).optional() }) }),
    /** The model's answer was not a yes or a no (`cause`; `call-failed`: the call failed or timed out), so the item was left out, as the pipeline's rule says. */
    z.object({ kind: z.literal('default-deny'), detail: z.object({ model: z.string().min(1), cause: z.enum(['empty', 'cut-off', 'unparseable', 'call-failed']) }) }),
    // Produced by retrieval's precision stage and the context package.
    /** The symbol calls (`calls`) or is called by (`called-by`) a symbol the task names (`symbol`). */
    z.object({ kind: z.literal('symbol-link'), detail: z.object({ symbol: z.string().min(1), direction: z.enum(['calls', 'called-by']) }) }),
    /** An assertion of a test among the files scope kept names the symbol (`test`, `line`). */
    z.object({ kind: z.literal('test-assertion'), detail: z.object({ test: path, line: z.number().int().min(1) }) }),
    /** A library symbol (from outside the repository: a dependency or the standard library) that a kept symbol uses; type_context without a judgment. */
    z.object({ kind: z.literal('library'), detail: z.object({ module: z.string().min(1) }) }),
    /** A later precision pass's verdict: pass 2 "directly involved?", pass 3 "full source needed?". */
    z.object({ kind: z.literal('precision-verdict'), detail: z.object({ pass: z.union([z.literal(2), z.literal(3)]), answer: z.enum(['yes', 'no']), model: z.string().min(1), probability: z.number().min(0).max(1).optional() }) }),
    /** Past precision's caps: judged with the other symbols of its group (`size` symbols of one file) by one "is any of these relevant?" judgment. */
    z.object({ kind: z.literal('group-verdict'), detail: z.object({ size: z.number().int().min(1), answer: z.enum(['yes', 'no']), model: z.string().min(1), probability: z.number().min(0).max(1).optional() }) }),
    /** Enrichment metadata (promoted into the index) shares these concepts, domain or module with the task. */
    z.object({ kind: z.literal('metadata-match'), detail: z.object({ matched: z.array(z.string().min(1)).min(1) }) }),
    /** A refinement request asked for it (`evidence`: what kind of evidence, `text`: the evidence), or the previous package held it. */
    z.object({ kind: z.literal('refinement'), detail: z.object({ evidence: z.enum(['missing-file', 'missing-symbol', 'missing-test', 'error-signature', 'previous-package']), text: z.string() }) }),
    /** The similarity stage judged two files related; `with` is the other file of the pair. */
    z.object({ kind: z.literal('related'), detail: z.object({ with: path, model: z.string().min(1), probability: z.number().min(0).max(1).optional() }) }),
    /** The over-budget re-filter (one batched call) chose to keep or drop the file (`kept`), or could not be read (`fallback`: priority eviction). */
    z.object({ kind: z.literal('refilter'), detail: z.object({ kept: z.boolean(), model: z.string().min(1), fallback: z.boolean().optional() }) }),
    /** The full source (`fullTokens`) did not fit the budget, so the package shows the signature. */
    z.object({ kind: z.literal('demoted'), detail: z.object({ fullTokens: z.number().int().min(0) }) }),
    /** Left out of the package: it needs `tokens`, only `left` remained of the budget. */
    z.object({ kind: z.literal('over-budget'), detail: z.object({ tokens: z.number().int().min(0), left: z.number().int().min(0) }) }),
  ]);
}

/** One reason, by kind (built on the first check). */
export const reasonSchema = z.lazy(buildReasonSchema);

/** A reason: `{kind, detail}`, the detail typed per kind. */
export type Reason = z.infer<ReturnType<typeof buildReasonSchema>>;
/** Every reason kind, produced today or reserved. */
export type ReasonKind = Reason['kind'];
/** The reason of one kind. */
export type ReasonOf<K extends ReasonKind> = Extract<Reason, { kind: K }>;

/** All kinds: the search kinds first, then the reserved ones (the schema's order; reasons.test.ts checks the two agree). */
export const REASON_KINDS = ['text-match', 'path-match', 'file-text-match', 'past-commits', 'semantic-match', 'definition', 'imported-by', 'imports', 'co-change', 'symbol-graph', 'named-in-task', 'file-class', 'seed', 'plan-file', 'judged-relevant', 'cited', 'judged-irrelevant', 'default-deny', 'symbol-link', 'test-assertion', 'library', 'precision-verdict', 'group-verdict', 'metadata-match', 'refinement', 'related', 'refilter', 'demoted', 'over-budget'] as const satisfies readonly ReasonKind[];

/** The kinds search produces; the others are reserved for retrieval and chat. */
export const SEARCH_REASON_KINDS = ['text-match', 'path-match', 'file-text-match', 'past-commits', 'semantic-match', 'definition', 'imported-by', 'imports', 'co-change', 'symbol-graph', 'named-in-task', 'file-class'] as const satisfies readonly ReasonKind[];

/** True for the kinds that only relate a file to another hit (graph neighbours), not to the query itself. */
export function isNeighbourReason(reason: Reason): boolean {
  return reason.kind === 'imported-by' || reason.kind === 'imports' || reason.kind === 'co-change' || reason.kind === 'symbol-graph';
}

/** A stable key of a reason, for de-duplication and React keys. */
export function reasonKey(reason: Reason): string {
  return `${reason.kind}:${JSON.stringify(reason.detail)}`;
}

/** A file class in words (the `file-class` reason). */
const FILE_CLASS_WORDS = {
  docs: 'documentation',
  config: 'configuration',
  vendored: 'vendored third-party code',
  generated: 'generated code',
  declarations: 'type declarations',
  examples: 'examples or fixtures',
} as const;

/** The last segment of a path, for the compact form. */
function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/**
 * One reason in words. `compact` (the result list) names paths by their file name and drops
 * scores; the full form (the CLI, tooltips) names whole paths.
 */
export function formatReason(reason: Reason, options: { compact?: boolean } = {}): string {
  const p = (value: string) => (options.compact ? baseName(value) : value);
  switch (reason.kind) {
    case 'text-match':
      return 'text match';
    case 'path-match':
      return 'path match';
    case 'file-text-match':
      return 'whole-file text match';
    case 'past-commits':
      return options.compact
        ? `changed by similar commits (${reason.detail.commits})`
        : `changed by ${reason.detail.commits} past commit${reason.detail.commits === 1 ? '' : 's'} like the task (best: ${reason.detail.sha.slice(0, 8)} “${reason.detail.message}”)`;
    case 'semantic-match':
      return options.compact ? 'semantic match' : `semantic match (${reason.detail.similarity.toFixed(2)})`;
    case 'definition':
      return `defines ${reason.detail.symbol}`;
    case 'imported-by':
      return `imported by ${p(reason.detail.path)}`;
    case 'imports':
      return `imports ${p(reason.detail.path)}`;
    case 'co-change':
      return `changes with ${p(reason.detail.path)} (${reason.detail.commits} commits)`;
    case 'symbol-graph': {
      const { relation, symbol, from } = reason.detail;
      const words = { 'called-by': `called by ${from}`, 'base-class': `base class of ${from}`, subclass: `subclass of ${from}`, override: `overrides or is overridden by ${from}` }[relation];
      return options.compact ? words : `${symbol}: ${words} (${reason.detail.path})`;
    }
    case 'named-in-task':
      return `named in the task (“${reason.detail.text}”)`;
    case 'file-class':
      return options.compact ? `ranked lower: ${FILE_CLASS_WORDS[reason.detail.class]}` : `ranked below the project's own code: ${FILE_CLASS_WORDS[reason.detail.class]} the task does not ask for`;
    case 'seed':
      return `search hit #${reason.detail.rank}`;
    case 'plan-file':
      return reason.detail.step ? `in the plan (step ${reason.detail.step})` : 'in the plan';
    case 'judged-relevant':
      return reason.detail.probability !== undefined
        ? `judged relevant by ${reason.detail.model} (P ${reason.detail.probability.toFixed(2)})`
        : `judged relevant by ${reason.detail.model}`;
    case 'cited':
      return reason.detail.startLine === reason.detail.endLine ? `cited at line ${reason.detail.startLine}` : `cited at lines ${reason.detail.startLine}–${reason.detail.endLine}`;
    case 'judged-irrelevant':
      return reason.detail.probability !== undefined
        ? `judged not relevant by ${reason.detail.model} (P ${reason.detail.probability.toFixed(2)})`
        : `judged not relevant by ${reason.detail.model}`;
    case 'default-deny':
      return reason.detail.cause === 'call-failed' ? `left out: the call to ${reason.detail.model} failed` : `left out: ${reason.detail.model} gave no yes or no (${reason.detail.cause})`;
    case 'symbol-link':
      return reason.detail.direction === 'calls' ? `calls ${reason.detail.symbol}` : `called by ${reason.detail.symbol}`;
    case 'test-assertion':
      return `named in an assertion of ${p(reason.detail.test)}:${reason.detail.line}`;
    case 'library':
      return `library symbol from ${reason.detail.module} (no judgment)`;
    case 'precision-verdict': {
      const q = reason.detail.pass === 2 ? 'directly involved' : 'full source needed';
      const p = reason.detail.probability !== undefined && !options.compact ? ` (P ${reason.detail.probability.toFixed(2)})` : '';
      return `${q}: ${reason.detail.answer}${p}`;
    }
    case 'group-verdict': {
      const p = reason.detail.probability !== undefined && !options.compact ? ` (P ${reason.detail.probability.toFixed(2)})` : '';
      return `judged in a group of ${reason.detail.size} symbols: ${reason.detail.answer === 'yes' ? 'relevant' : 'not relevant'}${p}`;
    }
    case 'metadata-match':
      return `metadata matches the task (${reason.detail.matched.join(', ')})`;
    case 'refinement':
      return reason.detail.evidence === 'previous-package' ? 'in the previous package' : `asked for by a refinement (${reason.detail.evidence}: ${reason.detail.text})`;
    case 'related':
      return `related to ${p(reason.detail.with)} (${reason.detail.model})`;
    case 'refilter':
      return reason.detail.fallback ? 'kept by priority (the re-filter answer was unreadable)' : reason.detail.kept ? `kept by the budget re-filter (${reason.detail.model})` : `dropped by the budget re-filter (${reason.detail.model})`;
    case 'demoted':
      return `signature only (full source, ${reason.detail.fullTokens} tokens, did not fit)`;
    case 'over-budget':
      return `over budget (needs ${reason.detail.tokens} tokens, ${reason.detail.left} left)`;
  }
}

/** A file's reasons as one line: `defines load · text match · imported by app.py`. */
export function formatReasons(reasons: readonly Reason[], options: { compact?: boolean } = {}): string {
  return reasons.map((r) => formatReason(r, options)).join(options.compact ? ' · ' : '; ');
}
