import { describe, expect, it } from 'vitest';
import { allGoldAt, goldRanks, meanScores, parseKs, recallAt, reciprocalRank, scoreRanking } from './metrics';

// A ranking worked by hand: gold a.py is at rank 2, gold b.py at rank 4, gold c.py not ranked.
const ranked = ['x.py', 'a.py', 'y.py', 'b.py', 'z.py'];
const gold = ['a.py', 'b.py', 'c.py'];

describe('retrieval metrics', () => {
  it('recall@k counts the gold files inside the first k', () => {
    expect(recallAt(ranked, gold, 1)).toBe(0);
    expect(recallAt(ranked, gold, 2)).toBeCloseTo(1 / 3);
    expect(recallAt(ranked, gold, 4)).toBeCloseTo(2 / 3);
    expect(recallAt(ranked, gold, 10)).toBeCloseTo(2 / 3);
    expect(recallAt(ranked, ['a.py'], 2)).toBe(1);
  });

  it('all-gold@k is 1 only when every gold file is in the first k', () => {
    expect(allGoldAt(ranked, ['a.py', 'b.py'], 3)).toBe(0);
    expect(allGoldAt(ranked, ['a.py', 'b.py'], 4)).toBe(1);
    expect(allGoldAt(ranked, gold, 5)).toBe(0);
  });

  it('reciprocal rank is 1 over the rank of the first gold file', () => {
    expect(reciprocalRank(ranked, gold)).toBe(0.5);
    expect(reciprocalRank(ranked, ['b.py'])).toBe(0.25);
    expect(reciprocalRank(ranked, ['c.py'])).toBe(0);
    expect(reciprocalRank([], gold)).toBe(0);
  });

  it('gives each gold file its 1-based rank or null', () => {
    expect(goldRanks(ranked, gold)).toEqual({ 'a.py': 2, 'b.py': 4, 'c.py': null });
  });

  it('averages per-task scores over tasks', () => {
    const first = scoreRanking(ranked, gold, [1, 5]); // recall@1 0, @5 2/3; all@5 0; rr 1/2
    const second = scoreRanking(['c.py', 'q.py'], ['c.py'], [1, 5]); // recall@1 1, @5 1; all 1; rr 1
    const mean = meanScores([first, second], [1, 5]);
    expect(mean.recallAt[1]).toBeCloseTo(0.5);
    expect(mean.recallAt[5]).toBeCloseTo((2 / 3 + 1) / 2);
    expect(mean.allGoldAt[1]).toBeCloseTo(0.5);
    expect(mean.allGoldAt[5]).toBeCloseTo(0.5);
    expect(mean.mrr).toBeCloseTo(0.75);
    expect(meanScores([], [1]).recallAt[1]).toBe(0);
  });

  it('parses a k list and rejects nonsense', () => {
    expect(parseKs('10,1,5,5')).toEqual([1, 5, 10]);
    expect(parseKs('0,3')).toBeUndefined();
    expect(parseKs('a')).toBeUndefined();
    expect(parseKs('')).toBeUndefined();
  });
});
