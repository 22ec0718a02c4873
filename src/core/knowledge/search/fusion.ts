import { RRF_K } from './rankingConstants';

/**
 * Reciprocal rank fusion: each key scores the sum over the rankings that contain it of
 * 1 / (k + rank), rank counted from 1. Returns keys by fused score, best first; ties keep the order
 * of first appearance.
 */
export function reciprocalRankFusion<K>(rankings: ReadonlyArray<readonly K[]>, k = RRF_K): Array<{ key: K; score: number }> {
  const scores = new Map<K, number>();
  for (const ranking of rankings) {
    ranking.forEach((key, index) => scores.set(key, (scores.get(key) ?? 0) + 1 / (k + index + 1)));
  }
  return [...scores.entries()].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score);
}
