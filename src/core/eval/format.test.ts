import { describe, expect, it } from 'vitest';
import type { EvalReport } from '../../shared/contract/eval';
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
