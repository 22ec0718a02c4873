import { formatReasons, type ContextPackage, type PackageFile, type PackageItem, type RetrievalJudgment, type RetrievalResult, type RetrievalSummary, type RetrievalVerdict, type RunFinished, type RunInfo } from '../../../../shared/contract';

/** The package of a finished retrieve run: the run's result. */
export interface InspectionResult {
  package: ContextPackage;
  summary: RetrievalSummary;
  markdown: string;
  stages: string[];
  verdicts: RetrievalVerdict[];
}

/** One inspection: a task run through the pipeline (a retrieve run), its judgments as they arrive, then its package. */
export interface Inspection {
  /** The engine's id of the task (null until retrieval/run answers). */
  taskId: string | null;
  /** The retrieve run followed (null until retrieval/run answers). */
  runId: string | null;
  repoId: string;
  task: string;
  status: 'starting' | 'running' | 'done' | 'failed' | 'cancelled';
  /** Newest last. */
  judgments: RetrievalJudgment[];
  result: InspectionResult | null;
  error: string | null;
}

/** Judgments kept in the live list (the package keeps every decision). */
export const MAX_LIVE_JUDGMENTS = 500;

/** Pure updates of an inspection from answers and pushed events; tested without React. */
export const inspectionReducers = {
  start(repoId: string, task: string): Inspection {
    return { taskId: null, runId: null, repoId, task, status: 'starting', judgments: [], result: null, error: null };
  },
  /** retrieval/run answered with the run's record: its events are followed from now on. */
  started(i: Inspection, run: RunInfo<'retrieve'>, taskId: string): Inspection {
    return { ...i, runId: run.runId, taskId, status: i.status === 'starting' ? 'running' : i.status };
  },
  /** A run started elsewhere (another window, before a reload), attached to: shown from its record. */
  attached(run: RunInfo<'retrieve'>): Inspection {
    return { taskId: null, runId: run.runId, repoId: run.subject.repoId, task: run.subject.task, status: run.status, judgments: [], result: null, error: run.error?.message ?? null };
  },
  /** A judgment of this inspection's run arrived. */
  judgment(i: Inspection, j: RetrievalJudgment): Inspection {
    if (j.runId !== i.runId) return i;
    const judgments = i.judgments.length >= MAX_LIVE_JUDGMENTS ? [...i.judgments.slice(1), j] : [...i.judgments, j];
    return { ...i, taskId: i.taskId ?? j.taskId, judgments };
  },
  /** The run's product: its result (from run/finished, or from run/attach once it ended). */
  result(i: Inspection, r: RetrievalResult): Inspection {
    return { ...i, taskId: i.taskId ?? r.taskId, result: { package: r.package, summary: r.summary, markdown: r.markdown, stages: r.stages ?? [], verdicts: r.verdicts ?? [] } };
  },
  /** The run ended (run/finished of its run id): its result when it ended well. */
  finished(i: Inspection, f: RunFinished): Inspection {
    if (f.runId !== i.runId) return i;
    const ended = { ...i, status: f.status, error: f.status === 'failed' ? (f.error?.message ?? 'The run failed.') : null };
    return f.kind === 'retrieve' && f.result ? inspectionReducers.result(ended, f.result) : ended;
  },
  /** retrieval/run was refused (validation, no index, no models). */
  refused(i: Inspection, message: string): Inspection {
    return { ...i, status: 'failed', error: message };
  },
};

/** The files of a package by tier, tiers in order, files in package order. */
export function filesByTier(pkg: ContextPackage): Array<{ tier: number; files: PackageFile[] }> {
  const tiers = new Map<number, PackageFile[]>();
  for (const f of pkg.files) tiers.set(f.tier, [...(tiers.get(f.tier) ?? []), f]);
  return [...tiers.entries()].sort(([a], [b]) => a - b).map(([tier, files]) => ({ tier, files }));
}

/** What a tier means (retrieval's tiers: 0 plan, 1 seeds, 2 imports, 3 co-change, 4 metadata). */
export function tierLabel(tier: number): string {
  return ['Tier 0 · the plan', 'Tier 1 · seeds (named in the task, search hits)', 'Tier 2 · import dependencies', 'Tier 3 · co-change neighbours', 'Tier 4 · metadata matches'][tier] ?? `Tier ${tier}`;
}

/** The judgments behind one file or symbol (`path` or `path:qualified.name`), in stage order. */
export function verdictsFor(verdicts: readonly RetrievalVerdict[], subject: string): RetrievalVerdict[] {
  return verdicts.filter((v) => v.subject === subject && v.verdict !== undefined).sort((a, b) => a.stage.localeCompare(b.stage));
}

/** A stage's name as the page shows it (precision_pass2 → pass 2, precision_group → groups, precision_file → files). */
export function stageLabel(stage: string): string {
  const pass = /^precision_pass(\d)$/.exec(stage);
  return pass ? `pass ${pass[1]}` : stage === 'precision_group' ? 'groups' : stage === 'precision_file' ? 'files' : stage;
}

/** Used share of the budget in percent (0..100), for the budget bar. */
export function budgetPercent(budget: ContextPackage['budget']): number {
  return budget.tokens > 0 ? Math.min(100, Math.round((budget.used / budget.tokens) * 100)) : 0;
}

/** Counts of the live judgments per stage: how many, how many yes. */
export function judgmentCounts(judgments: readonly RetrievalJudgment[]): Array<{ stage: string; done: number; yes: number }> {
  const out = new Map<string, { stage: string; done: number; yes: number }>();
  for (const j of judgments) {
    const c = out.get(j.stage) ?? { stage: j.stage, done: 0, yes: 0 };
    c.done = Math.max(c.done, j.done);
    if (j.verdict === 'yes') c.yes++;
    out.set(j.stage, c);
  }
  return [...out.values()];
}

/** Symbols of a package by detail level: in full source, as a signature. */
export function detailCounts(pkg: ContextPackage): { full: number; signature: number } {
  let full = 0;
  let signature = 0;
  for (const f of pkg.files) {
    for (const i of f.items) {
      if (i.symbol && i.detail === 'full') full++;
      else if (i.symbol) signature++;
    }
  }
  return { full, signature };
}

/** The file name of a package saved as JSON. */
export function packageFileName(taskId: string): string {
  return `context-${taskId}.json`;
}

/** What "Save as JSON" writes: the summary, the package and every decision with its model call. */
export function packageJson(result: InspectionResult): string {
  return `${JSON.stringify({ summary: result.summary, stages: result.stages, package: result.package, verdicts: result.verdicts }, null, 2)}\n`;
}

/** Verdict reasons: shown as chips with their calls, not as words. */
export const VERDICT_KINDS: ReadonlySet<string> = new Set(['judged-relevant', 'judged-irrelevant', 'default-deny', 'precision-verdict', 'group-verdict']);

/**
 * What a symbol no model judged says instead of a verdict: the engine's own reason for it (a
 * library symbol, named in the task, linked to a named symbol…), never a guess; "not judged" when
 * the package gives none.
 */
export function unjudgedNote(item: PackageItem): string {
  const why = item.reasons.filter((r) => !VERDICT_KINDS.has(r.kind) && r.kind !== 'demoted');
  return why.length ? formatReasons(why) : 'not judged';
}
