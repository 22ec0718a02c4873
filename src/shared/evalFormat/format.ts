import type { EvalMethod, EvalReport, EvalTaskResult } from '../contract/eval';
import { formatComparisons } from '../evalComparisons';
import { printable } from '../printable';
import { formatPipeline } from './pipelineFormat';
import { formatChatEvidence } from './chatEvidenceFormat';

const fixed = (n: number | undefined) => (n === undefined ? '   -  ' : n.toFixed(3).padStart(6));

/** The tasks where `method` ranked no gold file within the first k (the report's misses). */
export function missesOf(report: EvalReport, method: EvalMethod, k: number): EvalTaskResult[] {
  return report.tasks.filter((t) => !t.error && (t.results[method]?.recallAt[k] ?? 0) === 0);
}

/** The summary table for people: one row per method, recall@k, all-gold@k, MRR and time. */
export function formatSummaryTable(report: EvalReport): string[] {
  const ks = report.ks;
  const width = Math.max(15, ...report.methods.map((m) => m.length));
  const header = ['method'.padEnd(width), ...ks.map((k) => `R@${k}`.padStart(6)), ...ks.map((k) => `All@${k}`.padStart(6)), '   MRR', '  ms/task'];
  const rows = report.methods.map((method) => {
    const s = report.summary[method];
    return [
      method.padEnd(width),
      ...ks.map((k) => fixed(s?.recallAt[k])),
      ...ks.map((k) => fixed(s?.allGoldAt[k])),
      fixed(s?.mrr),
      String(report.timing.methodMsMean[method] ?? 0).padStart(9),
    ];
  });
  return [header, ...rows].map((cells) => cells.join('  '));
}

/** The whole human-readable report: headline, table, timing, mining figures, misses. */
export function formatReport(report: EvalReport, options: { missLimit?: number; file?: string } = {}): string {
  const lines: string[] = [];
  const ok = report.tasks.filter((t) => !t.error).length;
  lines.push(`Evaluated ${ok} task(s) on ${printable(report.repoPath)} at ${report.head.slice(0, 12)} (report ${report.id})`, '');
  lines.push(...formatSummaryTable(report), '');
  const verdicts = formatComparisons(report.comparisons ?? []);
  if (verdicts.length > 0) lines.push(...verdicts, '');
  const first = report.tasks.find((t) => !t.error);
  lines.push(`Index: ${report.timing.indexMsMean} ms/task mean (first task, full index: ${first?.indexMs ?? 0} ms); total ${(report.timing.totalMs / 1000).toFixed(1)} s`);
  if (report.timing.embedMsMean !== undefined) {
    lines.push(`Embedding: ${report.timing.embedMsMean} ms/task mean (first task, whole repository: ${first?.embedMs ?? 0} ms)`);
  }
  if (report.source.kind === 'history') {
    const skipped = Object.entries(report.source.skipped).map(([reason, n]) => `${reason} ${n}`).join(', ');
    lines.push(`Mined ${report.tasks.length} task(s) from ${report.source.considered} commit(s)${skipped ? `; skipped: ${skipped}` : ''}`);
  } else {
    lines.push(`Tasks from ${report.source.file}`);
  }
  for (const note of report.notes) lines.push(`Note: ${note}`);
  for (const task of report.tasks.filter((t) => t.error)) lines.push(`Failed ${printable(task.id)}: ${printable(task.error ?? '')}`);
  const method = report.methods[0]!;
  const k = report.ks.includes(5) ? 5 : report.ks[report.ks.length - 1]!;
  const misses = missesOf(report, method, k);
  if (misses.length > 0) {
    lines.push('', `Misses of ${method} (no gold file in the top ${k}): ${misses.length}`);
    for (const task of misses.slice(0, options.missLimit ?? 10)) lines.push(...formatMiss(task, method));
  }
  const pipeline = formatPipeline(report);
  if (pipeline.length > 0) lines.push('', ...pipeline);
  const chat = formatChatEvidence(report);
  if (chat.length > 0) lines.push('', ...chat);
  if (options.file) lines.push('', `Report: ${options.file}`);
  return `${lines.join('\n')}\n`;
}

function formatMiss(task: EvalTaskResult, method: EvalMethod): string[] {
  const result = task.results[method]!;
  const gold = task.gold.map((g) => `${printable(g)} (${result.goldRanks[g] ? `rank ${result.goldRanks[g]}` : 'not ranked'})`).join(', ');
  const top = result.ranked.slice(0, 5).map((p) => printable(p)).join(', ');
  return [`  ${printable(task.id)}  ${printable(task.task.split('\n')[0]!.slice(0, 90))}`, `    gold: ${gold}`, `    top:  ${top || '(nothing)'}`];
}
