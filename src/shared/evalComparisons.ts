import type { EvalComparison } from './contract/eval';

/** One search method against one reference over the compared cut-offs, said in words. */
export interface ComparisonVerdict {
  method: EvalComparison['method'];
  reference: EvalComparison['reference'];
  /** True when the method beats the reference at every compared k. */
  beatsAll: boolean;
  /** e.g. `search does not beat bm25-source at R@5 (R@5 0.700 vs 0.720, R@10 0.900 vs 0.800)`. */
  text: string;
}

/**
 * One verdict per search method and reference (in the report's order): whether the search beats
 * it, at which k it does not, with recall@k of both. Shared by `cra eval` and the Evaluation page.
 */
export function comparisonVerdicts(comparisons: readonly EvalComparison[]): ComparisonVerdict[] {
  const pairs = new Map<string, EvalComparison[]>();
  for (const c of comparisons) {
    const key = `${c.method}\u0000${c.reference}`;
    pairs.set(key, [...(pairs.get(key) ?? []), c]);
  }
  const figures = (list: EvalComparison[]) => list.map((c) => `R@${c.k} ${c.methodRecall.toFixed(3)} vs ${c.referenceRecall.toFixed(3)}`).join(', ');
  return [...pairs.values()].map((list) => {
    const { method, reference } = list[0]!;
    const lost = list.filter((c) => !c.beats);
    // A reference that found every gold file cannot be beaten, only matched.
    const ceiling = lost.filter((c) => c.referenceRecall >= 1 && c.methodRecall >= 1);
    const atCeiling = ceiling.length > 0 ? `; ties it at the ceiling at ${ceiling.map((c) => `R@${c.k}`).join(', ')} (1.000: the reference found every gold file, nothing can beat it)` : '';
    const verdict =
      lost.length === 0
        ? `${method} beats ${reference}`
        : lost.length === list.length
          ? `${method} does not beat ${reference}`
          : `${method} does not beat ${reference} at ${lost.map((c) => `R@${c.k}`).join(', ')}`;
    return { method, reference, beatsAll: lost.length === 0, text: `${verdict} (${figures(list)})${atCeiling}` };
  });
}

/** The verdicts as lines of text (see {@link comparisonVerdicts}). */
export function formatComparisons(comparisons: readonly EvalComparison[]): string[] {
  return comparisonVerdicts(comparisons).map((v) => v.text);
}
