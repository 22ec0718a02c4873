import type { EvalScores } from '../../../shared/contract/eval';

/** Fraction of the gold files found among the first k ranked paths (0 for an empty gold set). */
export function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

/** 1 when every gold file is among the first k ranked paths, else 0. */
export function allGoldAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return gold.every((g) => top.has(g)) ? 1 : 0;
}

/** 1 / (1-based rank of the first gold file), 0 when no gold file is ranked. */
export function reciprocalRank(ranked: readonly string[], gold: readonly string[]): number {
  const goldSet = new Set(gold);
  const index = ranked.findIndex((path) => goldSet.has(path));
  return index < 0 ? 0 : 1 / (index + 1);
}

/** 1-based rank of each gold file in the ranking, null when absent. */
export function goldRanks(ranked: readonly string[], gold: readonly string[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const g of gold) {
    const index = ranked.indexOf(g);
    out[g] = index < 0 ? null : index + 1;
  }
  return out;
}

/** Every figure for one ranking against one gold set. */
export function scoreRanking(ranked: readonly string[], gold: readonly string[], ks: readonly number[]): EvalScores {
  const scores: EvalScores = { recallAt: {}, allGoldAt: {}, mrr: reciprocalRank(ranked, gold) };
  for (const k of ks) {
    scores.recallAt[k] = recallAt(ranked, gold, k);
    scores.allGoldAt[k] = allGoldAt(ranked, gold, k);
  }
  return scores;
}

/** The mean of per-task scores (all figures averaged over tasks); zeros for no tasks. */
export function meanScores(all: readonly EvalScores[], ks: readonly number[]): EvalScores {
  const mean = (pick: (s: EvalScores) => number) => (all.length === 0 ? 0 : all.reduce((sum, s) => sum + pick(s), 0) / all.length);
  const out: EvalScores = { recallAt: {}, allGoldAt: {}, mrr: mean((s) => s.mrr) };
  for (const k of ks) {
    out.recallAt[k] = mean((s) => s.recallAt[k] ?? 0);
    out.allGoldAt[k] = mean((s) => s.allGoldAt[k] ?? 0);
  }
  return out;
}

/** Parse a `--k` list such as "1,5,10": positive whole numbers, sorted, without duplicates. */
export function parseKs(text: string): number[] | undefined {
  const parts = text.split(',').map((p) => p.trim()).filter(Boolean);
  const ks = parts.map(Number);
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1 || k > 100)) return undefined;
  return [...new Set(ks)].sort((a, b) => a - b);
}
