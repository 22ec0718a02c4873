import type { DatasetSummary, StageDisagreement, StageStatistics, TrainingStatistics } from '../../../shared/contract/training';
import type { LogSources } from './logSources';

export type { StageDisagreement, StageStatistics, TrainingStatistics } from '../../../shared/contract/training';

const zeroOutcomes = (): StageStatistics['outcomes'] => ({ success: 0, partial: 0, failed: 0, cancelled: 0, running: 0, unknown: 0 });
const ratio = (a: number, b: number) => (b > 0 ? a / b : null);
const round = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);

/**
 * The deterministic statistics of the log and the bootstrap datasets: per stage volume, error and
 * default-deny rates, the outcome of the runs its decisions were made in (which stages' decisions
 * precede failed tasks), synthetic examples; scope → precision disagreement (a file scope kept
 * whose symbols precision all threw out); and the stages ordered weakest first.
 */
export function trainingStatistics(sources: LogSources, datasets: readonly DatasetSummary[], now = new Date()): TrainingStatistics {
  const byStage = new Map<string, StageStatistics>();
  const of = (stage: string) => {
    let s = byStage.get(stage);
    if (!s)
      byStage.set(
        stage,
        (s = { stage, calls: 0, errorRate: 0, meanLatencyMs: null, judged: 0, defaultDenyRate: 0, yesRate: 0, synthetic: { examples: 0, yes: 0, no: 0 }, outcomes: zeroOutcomes(), failedShare: null, defaultDenyInFailed: null, defaultDenyInSuccess: null }),
      );
    return s;
  };
  for (const f of sources.stageStats()) Object.assign(of(f.stage), { calls: f.calls, errorRate: round(f.errorRate), meanLatencyMs: f.meanLatencyMs, judged: f.judged, defaultDenyRate: round(f.defaultDenyRate), yesRate: round(f.yesRate) });
  const denies = new Map<string, { failed: number; failedDeny: number; success: number; successDeny: number }>();
  const scopeKept = new Map<string, Set<string>>();
  const precisionOut = new Map<string, Set<string>>();
  const precisionSeen = new Map<string, Set<string>>();
  const add = (m: Map<string, Set<string>>, run: string, path: string) => m.set(run, (m.get(run) ?? new Set()).add(path));
  for (const src of sources.sources) {
    for (const { decision: d, outcome } of src.analysis.decisionOutcomes()) {
      const run = `${src.file}|${d.runId}`;
      if (d.stage === 'scope' && d.decision === 'included' && d.verdict === 'yes') add(scopeKept, run, d.subject);
      if (d.stage.startsWith('precision') && d.subjectKind === 'symbol') add(precisionSeen, run, d.subject.split(':')[0]!);
      if (d.stage === 'precision' && d.subjectKind === 'file' && d.decision === 'excluded') add(precisionOut, run, d.subject);
      if (d.verdict === null && !d.defaultDeny) continue;
      const s = of(d.stage);
      const o = outcome?.outcome ?? 'unknown';
      s.outcomes[o] += 1;
      const t = denies.get(d.stage) ?? { failed: 0, failedDeny: 0, success: 0, successDeny: 0 };
      if (o === 'failed' || o === 'partial') {
        t.failed += 1;
        if (d.defaultDeny) t.failedDeny += 1;
      } else if (o === 'success') {
        t.success += 1;
        if (d.defaultDeny) t.successDeny += 1;
      }
      denies.set(d.stage, t);
    }
  }
  for (const [stage, t] of denies) {
    const s = of(stage);
    s.failedShare = round(ratio(t.failed, t.failed + t.success));
    s.defaultDenyInFailed = round(ratio(t.failedDeny, t.failed));
    s.defaultDenyInSuccess = round(ratio(t.successDeny, t.success));
  }
  let items = 0;
  let disagreed = 0;
  for (const [run, kept] of scopeKept) {
    const seen = precisionSeen.get(run);
    if (!seen) continue;
    for (const path of kept) {
      const out = precisionOut.get(run)?.has(path) ?? false;
      if (!seen.has(path) && !out) continue;
      items += 1;
      if (out) disagreed += 1;
    }
  }
  const disagreement: StageDisagreement[] = items ? [{ from: 'scope', to: 'precision', items, disagreed, rate: round(disagreed / items) ?? 0 }] : [];
  for (const d of datasets) {
    if (d.kind !== 'bootstrap') continue;
    for (const [stage, c] of Object.entries(d.counts)) {
      const s = of(stage);
      s.synthetic.examples += c.examples;
      s.synthetic.yes += c.yes;
      s.synthetic.no += c.no;
    }
  }
  const stages = [...byStage.values()].sort((a, b) => a.stage.localeCompare(b.stage));
  const disagreeOf = (stage: string) => (stage === 'scope' || stage.startsWith('precision') ? (disagreement[0]?.rate ?? 0) : 0);
  const weakest = stages
    .map((s) => ({ stage: s.stage, score: round(s.defaultDenyRate + (s.failedShare ?? 0) + disagreeOf(s.stage) + s.errorRate) ?? 0, examples: s.judged + s.synthetic.examples + (s.judged === 0 ? s.calls : 0) }))
    .filter((w) => w.examples > 0)
    .sort((a, b) => b.score - a.score || b.examples - a.examples || a.stage.localeCompare(b.stage));
  const volume = sources.volume();
  return {
    generatedAt: now.toISOString(),
    log: { rawDatabases: sources.sources.length, ...volume },
    datasets: datasets.map((d) => ({ id: d.id, kind: d.kind, examples: Object.values(d.counts).reduce((n, c) => n + c.examples, 0) })),
    stages,
    disagreement,
    weakest,
  };
}
