import type { EvalReport } from '../contract/eval';
import { printable } from '../printable';

const pct = (x: number) => x.toFixed(2).padStart(5);

/**
 * The pipeline's part of the report for people: the summary line (mean candidate and package
 * recall, median judgments, the search's recall@10 beside them), one row per task, and for every
 * gold file the candidates missed, why.
 */
export function formatPipeline(report: EvalReport): string[] {
  const s = report.pipeline;
  if (!s) return [];
  const lines: string[] = [];
  lines.push(
    `Pipeline (${s.judge} judge, budget ${s.budget} tokens) over ${s.tasks} task(s): candidate recall ${s.candidateRecallMean.toFixed(3)}, package recall ${s.packageRecallMean.toFixed(3)}${s.functionRecallMean !== undefined ? ` (functions ${s.functionRecallMean.toFixed(3)})` : ''}, ` +
      `judgments median ${s.judgmentsMedian} (scope ${s.scopeJudgmentsMedian}), candidates median ${s.candidatesMedian}, package ${s.packageTokensMean} tokens mean, ${s.msMean} ms/task mean` +
      (s.searchRecallAt10Mean !== undefined ? `; search R@10 ${s.searchRecallAt10Mean.toFixed(3)}` : ''),
  );
  lines.push(['task'.padEnd(12), 'gold', 'cand', 'candR', 'pkgR', 'S@10', 'judg', 'scope', 'tokens', '   ms', 'task text'].join('  '));
  for (const t of report.tasks) {
    const p = t.pipeline;
    if (!p) continue;
    const s10 = t.results.search?.recallAt['10'];
    lines.push(
      [
        printable(t.id).slice(0, 12).padEnd(12),
        String(t.gold.length).padStart(4),
        String(p.candidates).padStart(4),
        pct(p.candidateRecall),
        pct(p.packageRecall).padStart(4),
        s10 === undefined ? '   - ' : pct(s10),
        String(p.judgments).padStart(4),
        String(p.scopeJudgments).padStart(5),
        String(p.packageTokens).padStart(6),
        String(p.ms).padStart(5),
        printable(t.task.split('\n')[0]!.slice(0, 60)),
      ].join('  '),
    );
  }
  const missed = report.tasks.flatMap((t) => Object.entries(t.pipeline?.gold ?? {}).filter(([, g]) => g.tier === null || !g.inPackage).map(([path, g]) => ({ t, path, g })));
  if (missed.length > 0) {
    lines.push('', `Gold files the pipeline missed: ${missed.length}`);
    for (const { t, path, g } of missed) {
      const where = g.tier === null ? `not a candidate: ${(g.miss ?? []).join('; ')}` : `candidate (tier ${g.tier}) but not in the package: ${(g.miss ?? []).join('; ')}`;
      lines.push(`  ${printable(t.id).slice(0, 12)}  ${printable(path)}: ${printable(where)}`);
    }
  }
  return lines;
}
