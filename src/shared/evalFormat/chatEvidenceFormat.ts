import type { EvalReport } from '../contract/eval';
import { printable } from '../printable';

const pct = (x: number) => x.toFixed(2).padStart(5);

/**
 * The chat evidence part of the report for people (`cra eval --chat-evidence`): the summary line
 * (tasks with all gold files in the evidence, mean gold fraction, the search's recall@10 beside
 * them), one row per task, and for every gold file not sent, the step that lost it.
 */
export function formatChatEvidence(report: EvalReport): string[] {
  const s = report.chatEvidence;
  if (!s) return [];
  const lost = Object.entries(s.lost).map(([stage, n]) => `${stage} ${n}`).join(', ');
  const lines = [
    `Chat evidence (route ${s.mode}, pipeline "${s.pipeline}", budget ${s.budgetTokens} tokens) over ${s.tasks} task(s): all gold in the evidence ${s.allGoldRate.toFixed(3)}${s.allGoldRawRate !== undefined ? ` (raw within the budget, without condensing: ${s.allGoldRawRate.toFixed(3)})` : ''}, gold fraction ${s.goldFractionMean.toFixed(3)}, ` +
      `files median ${s.filesMedian}, ${s.evidenceTokensMean} tokens mean, ${s.msMean} ms/task mean` +
      (s.searchRecallAt10Mean !== undefined ? `; search R@10 ${s.searchRecallAt10Mean.toFixed(3)}` : '') +
      (s.goldAsExcerpt ? `; ${s.goldAsExcerpt} gold file(s) sent as excerpts` : '') +
      (s.condensed ? `; ${s.condensed} task(s) over the budget (a summarize call)` : '') +
      (lost ? `; gold files lost at: ${lost}` : '') +
      (s.errors > 0 ? `; ${s.errors} task(s) failed` : ''),
    ['task'.padEnd(12), 'gold', ' all', 'goldF', 'S@10', 'intent'.padEnd(14), 'hits', 'nodes', 'files', 'tokens', 'budget'.padEnd(10), 'task text'].join('  '),
  ];
  for (const t of report.tasks) {
    const c = t.chatEvidence;
    if (!c) continue;
    const s10 = t.results.search?.recallAt['10'] ?? t.results['search-hybrid']?.recallAt['10'] ?? t.results['search-semantic']?.recallAt['10'];
    lines.push(
      [
        printable(t.id).slice(0, 12).padEnd(12),
        String(t.gold.length).padStart(4),
        (c.allGold ? 'yes' : 'no').padStart(4),
        pct(c.goldFraction),
        s10 === undefined ? '   - ' : pct(s10),
        c.intent.padEnd(14),
        String(c.hits).padStart(4),
        String(c.nodes).padStart(5),
        String(c.files).padStart(5),
        String(c.evidenceTokens).padStart(6),
        c.budget.padEnd(10),
        printable(c.error ? `failed: ${c.error}` : t.task.split('\n')[0]!.slice(0, 60)),
      ].join('  '),
    );
  }
  const missed = report.tasks.flatMap((t) => Object.entries(t.chatEvidence?.gold ?? {}).filter(([, g]) => g.stage !== 'sent').map(([path, g]) => ({ t, path, g })));
  if (missed.length > 0) {
    lines.push('', `Gold files not in the evidence: ${missed.length}`);
    for (const { t, path, g } of missed) {
      const rank = t.results.search?.goldRanks[path] ?? t.results['search-hybrid']?.goldRanks[path] ?? t.results['search-semantic']?.goldRanks[path];
      lines.push(`  ${printable(t.id).slice(0, 12)}  ${printable(path)}: lost at ${g.stage}${g.hitRank !== null ? ` (search hit ${g.hitRank})` : ''}${rank ? `; search rank ${rank}` : '; not in the search top 50'}`);
    }
  }
  return lines;
}
