import { describe, expect, it } from 'vitest';
import { compareResults, describeMachine, formatComparison, resultFileName } from './runner';
import type { BenchResultFile } from './types';

const file = (figures: Record<string, [number, 'lower' | 'higher']>): BenchResultFile => ({
  format: 'clean-room-bench/1',
  createdAt: '2024-01-01T00:00:00.000Z',
  machine: { cpuModel: 'cpu', cores: 2, memoryBytes: 2 ** 30, node: '20', os: 'Linux', arch: 'x64', gitSha: 'abc', gitDirty: false },
  suites: { s: { ms: 1, figures: Object.entries(figures).map(([name, [value, better]]) => ({ name, value, unit: 'ms', better })) } },
});

describe('bench results', () => {
  it('names a result file by its date and the commit it measured', () => {
    const machine = describeMachine();
    const at = '2026-11-26T20:40:01.123Z';
    expect(resultFileName({ createdAt: at, machine: { ...machine, gitSha: 'abcdef0123456789', gitDirty: false } })).toBe('2026-11-26T20-40-01-123Z-abcdef0123.json');
    expect(resultFileName({ createdAt: at, machine: { ...machine, gitSha: 'abcdef0123456789', gitDirty: true } })).toBe('2026-11-26T20-40-01-123Z-abcdef0123-dirty.json');
    expect(resultFileName({ createdAt: at, machine: { ...machine, gitSha: null, gitDirty: null } })).toBe('2026-11-26T20-40-01-123Z-no-git.json');
  });

  it('describes the machine it runs on', () => {
    const machine = describeMachine();
    expect(machine.cores).toBeGreaterThan(0);
    expect(machine.memoryBytes).toBeGreaterThan(0);
    expect(machine.node).toBe(process.versions.node);
    expect(machine.gitSha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('compares two runs figure by figure with B/A ratios and verdicts', () => {
    const a = file({ latency: [100, 'lower'], recall: [0.5, 'higher'], steady: [10, 'lower'], gone: [1, 'lower'] });
    const b = file({ latency: [50, 'lower'], recall: [0.4, 'higher'], steady: [10.1, 'lower'], fresh: [2, 'lower'] });
    const rows = compareResults(a, b);
    expect(rows).toEqual([
      { key: 's/fresh', unit: 'ms', b: 2, verdict: 'only in B' },
      { key: 's/gone', unit: 'ms', a: 1, verdict: 'only in A' },
      { key: 's/latency', unit: 'ms', a: 100, b: 50, ratio: 0.5, verdict: 'better' },
      { key: 's/recall', unit: 'ms', a: 0.5, b: 0.4, ratio: 0.8, verdict: 'worse' },
      { key: 's/steady', unit: 'ms', a: 10, b: 10.1, ratio: expect.closeTo(1.01, 5), verdict: 'same' },
    ]);
    expect(formatComparison(a, b, rows)).toMatch(/s\/latency\s+100\s+50\s+0\.500\s+better/);
  });
});
