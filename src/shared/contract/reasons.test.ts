import { describe, expect, it } from 'vitest';
import { formatReason, formatReasons, isNeighbourReason, REASON_KINDS, reasonKey, reasonSchema, SEARCH_REASON_KINDS, type Reason } from './reasons';

/** One example of every kind: the switch in formatReason must cover each. */
const EXAMPLES: Reason[] = [
  { kind: 'text-match', detail: { score: 0.8 } },
  { kind: 'path-match', detail: { score: 1 } },
  { kind: 'file-text-match', detail: { score: 0.5 } },
  { kind: 'semantic-match', detail: { similarity: 0.734 } },
  { kind: 'definition', detail: { symbol: 'load_config' } },
  { kind: 'imported-by', detail: { path: 'app/main.py' } },
  { kind: 'imports', detail: { path: 'app/config.py' } },
  { kind: 'co-change', detail: { path: 'conf/tax.toml', commits: 4 } },
  { kind: 'named-in-task', detail: { text: 'load_config' } },
  { kind: 'file-class', detail: { class: 'vendored' } },
  { kind: 'seed', detail: { rank: 2 } },
  { kind: 'plan-file', detail: { step: 's3' } },
  { kind: 'judged-relevant', detail: { model: 'qwen2.5-coder:1.5b', probability: 0.91 } },
  { kind: 'cited', detail: { startLine: 12, endLine: 20 } },
  { kind: 'judged-irrelevant', detail: { model: 'qwen3:0.6b', probability: 0.08 } },
  { kind: 'default-deny', detail: { model: 'qwen3:0.6b', cause: 'cut-off' } },
  { kind: 'symbol-link', detail: { symbol: 'tokenize', direction: 'called-by' } },
  { kind: 'precision-verdict', detail: { pass: 2, answer: 'yes', model: 'qwen3:0.6b', probability: 0.88 } },
  { kind: 'metadata-match', detail: { matched: ['billing', 'invoices'] } },
  { kind: 'refinement', detail: { evidence: 'missing-symbol', text: 'Parser.parse' } },
  { kind: 'related', detail: { with: 'calc/parser.py', model: 'qwen3:0.6b', probability: 0.7 } },
  { kind: 'refilter', detail: { kept: true, model: 'qwen3:4b' } },
  { kind: 'demoted', detail: { fullTokens: 420 } },
  { kind: 'over-budget', detail: { tokens: 300, left: 12 } },
  { kind: 'past-commits', detail: { score: 0.7, commits: 2, sha: '3f2a9c1d0e', message: 'Do not compress server sent events' } },
  { kind: 'test-assertion', detail: { test: 'tests/test_parser.py', line: 42 } },
  { kind: 'library', detail: { module: 'collections' } },
  { kind: 'group-verdict', detail: { size: 12, answer: 'yes', model: 'qwen3:0.6b', probability: 0.8 } },
  { kind: 'symbol-graph', detail: { relation: 'base-class', symbol: 'Shape', from: 'Circle', path: 'geo/circle.py' } },
];

describe('reasons', () => {
  it('lists every kind once, search kinds among them, and each example is valid', () => {
    expect(new Set(REASON_KINDS).size).toBe(REASON_KINDS.length);
    expect(EXAMPLES.map((r) => r.kind).sort()).toEqual([...REASON_KINDS].sort());
    for (const kind of SEARCH_REASON_KINDS) expect(REASON_KINDS).toContain(kind);
    for (const reason of EXAMPLES) expect(reasonSchema.parse(reason)).toEqual(reason);
    // The list is written out (the schema is built on first use); it is the schema's, in its order.
    expect(REASON_KINDS).toEqual(reasonSchema.unwrap().options.map((o) => o.shape.kind.value));
  });

  it('rejects a reason without its typed detail or of an unknown kind', () => {
    expect(reasonSchema.safeParse({ kind: 'imported-by', detail: {} }).success).toBe(false);
    expect(reasonSchema.safeParse({ kind: 'co-change', detail: { path: 'a.py', commits: 0 } }).success).toBe(false);
    expect(reasonSchema.safeParse({ kind: 'imported by a hit', detail: { path: 'a.py' } }).success).toBe(false);
  });

  it('words each kind, full and compact', () => {
    expect(EXAMPLES.map((r) => formatReason(r))).toEqual([
      'text match',
      'path match',
      'whole-file text match',
      'semantic match (0.73)',
      'defines load_config',
      'imported by app/main.py',
      'imports app/config.py',
      'changes with conf/tax.toml (4 commits)',
      'named in the task (“load_config”)',
      "ranked below the project's own code: vendored third-party code the task does not ask for",
      'search hit #2',
      'in the plan (step s3)',
      'judged relevant by qwen2.5-coder:1.5b (P 0.91)',
      'cited at lines 12–20',
      'judged not relevant by qwen3:0.6b (P 0.08)',
      'left out: qwen3:0.6b gave no yes or no (cut-off)',
      'called by tokenize',
      'directly involved: yes (P 0.88)',
      'metadata matches the task (billing, invoices)',
      'asked for by a refinement (missing-symbol: Parser.parse)',
      'related to calc/parser.py (qwen3:0.6b)',
      'kept by the budget re-filter (qwen3:4b)',
      'signature only (full source, 420 tokens, did not fit)',
      'over budget (needs 300 tokens, 12 left)',
      'changed by 2 past commits like the task (best: 3f2a9c1d “Do not compress server sent events”)',
      'named in an assertion of tests/test_parser.py:42',
      'library symbol from collections (no judgment)',
      'judged in a group of 12 symbols: relevant (P 0.80)',
      'Shape: base class of Circle (geo/circle.py)',
    ]);
    expect(formatReason(EXAMPLES.find((r) => r.kind === 'file-class')!, { compact: true })).toBe('ranked lower: vendored third-party code');
    expect(formatReason(EXAMPLES.find((r) => r.kind === 'past-commits')!, { compact: true })).toBe('changed by similar commits (2)');
    const neighbours = EXAMPLES.slice(4, 8);
    expect(formatReasons(neighbours, { compact: true })).toBe('defines load_config · imported by main.py · imports config.py · changes with tax.toml (4 commits)');
    expect(formatReasons(neighbours)).toBe('defines load_config; imported by app/main.py; imports app/config.py; changes with conf/tax.toml (4 commits)');
    expect(formatReason({ kind: 'cited', detail: { startLine: 3, endLine: 3 } })).toBe('cited at line 3');
    const base = EXAMPLES.find((r) => r.kind === 'symbol-graph')!;
    expect(formatReason(base, { compact: true })).toBe('base class of Circle');
    expect(formatReason(base)).toBe('Shape: base class of Circle (geo/circle.py)');
    expect(formatReason({ kind: 'plan-file', detail: {} })).toBe('in the plan');
    expect(formatReason({ kind: 'default-deny', detail: { model: 'qwen3:0.6b', cause: 'call-failed' } })).toBe('left out: the call to qwen3:0.6b failed');
    expect(formatReason({ kind: 'refinement', detail: { evidence: 'previous-package', text: '' } })).toBe('in the previous package');
  });

  it('tells graph neighbours apart and keys reasons by kind and detail', () => {
    expect(EXAMPLES.filter(isNeighbourReason).map((r) => r.kind)).toEqual(['imported-by', 'imports', 'co-change', 'symbol-graph']);
    expect(reasonKey(EXAMPLES[5]!)).toBe(reasonKey({ kind: 'imported-by', detail: { path: 'app/main.py' } }));
    expect(reasonKey(EXAMPLES[5]!)).not.toBe(reasonKey({ kind: 'imports', detail: { path: 'app/main.py' } }));
  });
});
