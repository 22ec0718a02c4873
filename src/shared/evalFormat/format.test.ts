import { describe, expect, it } from 'vitest';
import type { EvalReport } from '../contract/eval';
import { formatComparisons } from '../evalComparisons';
import { formatReport } from './format';

const scores = { recallAt: { 1: 0 }, allGoldAt: { 1: 0 }, mrr: 0 };

describe('formatReport', () => {
  it('escapes control characters in the paths and task texts of its misses', () => {
    const report: EvalReport = {
      id: 'r1',
      createdAt: '2024-01-01T00:00:00Z',
      repoPath: '/repos/demo',
      head: 'a'.repeat(40),
      source: { kind: 'file', file: 'tasks.jsonl' },
      ks: [1],
      methods: ['search'],
      summary: { search: scores },
      timing: { totalMs: 10, indexMsMean: 5, methodMsMean: { search: 1 } },
      tasks: [
        {
          id: 't1',
          task: 'Fix \x1b[2Jthe parser',
          parent: 'b'.repeat(40),
          gold: ['src/gold\x1b[31m.py'],
          indexMs: 5,
          results: { search: { ...scores, ranked: ['src/top\nfile.py'], goldRanks: { 'src/gold\x1b[31m.py': null }, ms: 1 } },
        },
      ],
      notes: [],
    };
    const text = formatReport(report);
    expect(text).not.toContain('\x1b');
    expect(text).toContain('  t1  Fix \\x1b[2Jthe parser');
    expect(text).toContain('    gold: src/gold\\x1b[31m.py (not ranked)');
    expect(text).toContain('    top:  src/top\\nfile.py');
  });
});

describe('formatReport with two references', () => {
  it('prints every method in the table and the verdicts under it; a report stored before them prints none', () => {
    const s = (r: number) => ({ recallAt: { 5: r }, allGoldAt: { 5: r }, mrr: r });
    const report: EvalReport = {
      id: 'r2',
      createdAt: '2024-01-01T00:00:00Z',
      repoPath: '/repos/demo',
      head: 'a'.repeat(40),
      source: { kind: 'file', file: 'tasks.jsonl' },
      ks: [5],
      methods: ['search', 'search-source', 'bm25', 'bm25-source'],
      summary: { search: s(0.6), 'search-source': s(0.7), bm25: s(0.5), 'bm25-source': s(0.65) },
      timing: { totalMs: 10, indexMsMean: 5, methodMsMean: {} },
      tasks: [],
      notes: [],
      comparisons: [
        { method: 'search', reference: 'bm25', k: 5, methodRecall: 0.6, referenceRecall: 0.5, beats: true },
        { method: 'search', reference: 'bm25-source', k: 5, methodRecall: 0.6, referenceRecall: 0.65, beats: false },
      ],
    };
    const text = formatReport(report);
    expect(text).toMatch(/^search-source\s+0\.700\s+0\.700\s+0\.700\s+0$/m);
    expect(text).toMatch(/^bm25-source\s+0\.650/m);
    expect(text).toContain('search beats bm25 (R@5 0.600 vs 0.500)\nsearch does not beat bm25-source (R@5 0.600 vs 0.650)\n');
    const { comparisons: _dropped, ...stored } = report;
    expect(formatReport(stored)).not.toContain('beat');
  });
});

describe('formatComparisons', () => {
  it('says which reference each search beats, and at which k it does not', () => {
    const c = (method: 'search' | 'search-source', reference: 'bm25' | 'bm25-source', k: number, m: number, r: number) => ({
      method,
      reference,
      k,
      methodRecall: m,
      referenceRecall: r,
      beats: m > r,
    });
    expect(
      formatComparisons([
        c('search', 'bm25', 5, 0.85, 0.7),
        c('search', 'bm25', 10, 0.9, 0.8),
        c('search', 'bm25-source', 5, 0.7, 0.72),
        c('search', 'bm25-source', 10, 0.9, 0.8),
        c('search-source', 'bm25-source', 5, 0.7, 0.72),
        c('search-source', 'bm25-source', 10, 0.8, 0.8),
      ]),
    ).toEqual([
      'search beats bm25 (R@5 0.850 vs 0.700, R@10 0.900 vs 0.800)',
      'search does not beat bm25-source at R@5 (R@5 0.700 vs 0.720, R@10 0.900 vs 0.800)',
      'search-source does not beat bm25-source (R@5 0.700 vs 0.720, R@10 0.800 vs 0.800)',
    ]);
  });

  it('says when a search ties a reference that found every gold file (nothing can beat it)', () => {
    const c = (k: number, m: number, r: number) => ({ method: 'search-source' as const, reference: 'bm25-source' as const, k, methodRecall: m, referenceRecall: r, beats: m > r });
    expect(formatComparisons([c(5, 0.95, 0.9), c(10, 1, 1)])).toEqual([
      'search-source does not beat bm25-source at R@10 (R@5 0.950 vs 0.900, R@10 1.000 vs 1.000); ties it at the ceiling at R@10 (1.000: the reference found every gold file, nothing can beat it)',
    ]);
    // Below the ceiling, or behind a reference at it, a tie or loss is no more than that.
    expect(formatComparisons([c(5, 0.9, 0.9), c(10, 0.98, 1)])).toEqual(['search-source does not beat bm25-source (R@5 0.900 vs 0.900, R@10 0.980 vs 1.000)']);
  });
});
