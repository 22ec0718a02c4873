import type { EvalPipelineGold, EvalPipelineResult, EvalTask } from '../../../shared/contract/eval';
import { readConfinedText } from '../../platform/fs/confine';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { LlmClient } from '../../platform/llm/client';
import { type DecisionRecord, type DecisionSink, runBinaryJudgment, type BinaryJudge, buildPackage, effectiveBudget, type BudgetConfig, runPipeline, PrecisionStage, type PrecisionOptions, SCOPE_DEFAULTS, ScopeStage, type ScopeOptions, analyzeTask } from '../../features/retrieval';
import { searchRepository } from '../../knowledge/search/search';
import { changedLines } from './goldLines';
import { goldUnits, packageUnitRecall } from './functionLevel';
import { countingJudge, goldTruth, oracleJudge, yesJudge, type EvalJudgeKind, type GoldTruth } from './pipelineJudges';

/** How `cra eval --pipeline` runs the pipeline on each task. */
export interface PipelineEvalOptions {
  judge: EvalJudgeKind;
  /** The configured model client (`--judge model`); the other judges make no model call. */
  llm?: LlmClient;
  /** Enrich the task analysis with the model (model judge with a task_analysis model assigned). */
  enrich?: boolean;
  budget: BudgetConfig;
  scope?: ScopeOptions;
  precision?: PrecisionOptions;
  /** Judgments at once (model judge). */
  concurrency?: number;
}

/** A client for the judges that make no model call: any call is a bug, and says so. */
function noModelClient(judge: EvalJudgeKind): LlmClient {
  return new LlmClient({
    router: () => {
      throw new Error(`The ${judge} judge makes no model call, yet one was attempted.`);
    },
  });
}

/** Keeps decisions in memory: the evaluation reads the scope candidates from them. */
class DecisionList implements DecisionSink {
  readonly all: DecisionRecord[] = [];
  record(d: DecisionRecord): void {
    this.all.push(d);
  }
}

const SEARCH_DIAGNOSIS_DEPTH = 200;

/**
 * Run scope and precision on one task at its parent commit (the index in `kb` is of that commit,
 * the checkout at `root`), with the judge asked for, and measure: the gold files among the scope
 * candidates and in the package, the judgments, the package's tokens and the time. A gold file
 * the candidates miss is explained: over the cap, or which tier would have reached it.
 */
export async function evaluatePipelineTask(args: { kb: KnowledgeBase; root: string; repoPath: string; task: EvalTask; options: PipelineEvalOptions; signal?: AbortSignal }): Promise<EvalPipelineResult> {
  const { kb, task, options } = args;
  const started = performance.now();
  const budgetTokens = effectiveBudget(options.budget);
  let truth: GoldTruth | undefined;
  let inner: BinaryJudge;
  const changed = task.commit ? await changedLines(args.repoPath, task.parent, task.commit, task.gold, args.signal) : undefined;
  if (options.judge === 'oracle') {
    truth = goldTruth(kb, task.gold, changed);
    inner = oracleJudge(truth);
  } else if (options.judge === 'yes') inner = yesJudge;
  else inner = runBinaryJudgment;
  if (options.judge === 'model' && !options.llm) throw new Error('The model judge needs a configured model client.');
  const llm = options.llm ?? noModelClient(options.judge);
  const { judge, counts } = countingJudge(inner);
  const record = await analyzeTask(task.task, kb, { id: `eval-${task.id}`, signal: args.signal, ...(options.enrich && options.llm ? { llm: options.llm } : {}) });
  const decisions = new DecisionList();
  const result = await runPipeline({
    stages: [new ScopeStage(options.scope), new PrecisionStage(options.precision)],
    kb,
    task: record,
    llm,
    runId: `eval-${task.id}`,
    budgetTokens,
    decisions,
    judge,
    signal: args.signal,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  });
  // An indexed file may since have become a FIFO or a link out: skipped, not read.
  const readSource = (path: string) => readConfinedText(args.root, path);
  const pkg = buildPackage({ task: record, files: result.context.files, budgetTokens, readSource, kb });
  const ms = Math.round(performance.now() - started);

  const scope = decisions.all.filter((d) => d.stage === 'scope' && d.subjectKind === 'file');
  const candidates = new Map(scope.filter((d) => d.decision !== 'over-cap').map((d) => [d.subject, Number(d.tier)]));
  const overCap = new Map(scope.filter((d) => d.decision === 'over-cap').map((d) => [d.subject, Number(d.tier)]));
  const inPackage = new Set(pkg.files.map((f) => f.path));
  const gold: Record<string, EvalPipelineGold> = {};
  const seeds = scope.filter((d) => d.tier === '1' && d.decision !== 'over-cap').map((d) => d.subject);
  for (const path of task.gold) {
    const tier = candidates.get(path) ?? null;
    const entry: EvalPipelineGold = { tier, inPackage: inPackage.has(path) };
    if (tier !== null && !entry.inPackage) entry.miss = packageMiss(path, decisions.all, pkg.dropped);
    if (tier === null) entry.miss = await diagnoseMiss(kb, path, { task: task.task, seeds, overCap, gold: task.gold, minCoChange: options.scope?.minCoChange ?? SCOPE_DEFAULTS.minCoChange, searchSeeds: options.scope?.searchSeeds ?? SCOPE_DEFAULTS.searchSeeds, signal: args.signal });
    gold[path] = entry;
  }
  const n = task.gold.length || 1;
  const judgments = Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    judge: options.judge,
    candidates: candidates.size,
    overCap: overCap.size,
    candidateRecall: Object.values(gold).filter((g) => g.tier !== null).length / n,
    packageRecall: Object.values(gold).filter((g) => g.inPackage).length / n,
    ...(changed ? { functionRecall: packageUnitRecall(pkg, goldUnits(kb, changed)) } : {}),
    judgments,
    scopeJudgments: counts.scope ?? 0,
    packageFiles: pkg.files.length,
    packageTokens: pkg.budget.used,
    budget: budgetTokens,
    ms,
    gold,
    ...(truth && truth.nearest.length > 0 ? { nearestSymbol: truth.nearest } : {}),
  };
}

/**
 * Why a gold candidate is not in the package: scope judged it out, precision kept none of its
 * symbols (how many were judged one by one, how many in groups past the symbol caps), or the budget dropped it.
 */
export function packageMiss(path: string, decisions: readonly DecisionRecord[], dropped: ReadonlyArray<{ path: string }>): string[] {
  const out: string[] = [];
  const scope = decisions.find((d) => d.stage === 'scope' && d.subject === path);
  if (scope?.decision === 'excluded') out.push('scope: judged not needed');
  const mine = (stage: string) => decisions.filter((d) => d.stage === stage && d.subject.startsWith(`${path}:`)).length;
  if (decisions.some((d) => d.stage === 'precision' && d.subject === path && d.decision === 'excluded')) out.push(`precision: no symbol kept (${mine('precision_pass1')} judged one by one, ${mine('precision_group')} in groups past the symbol caps)`);
  const lost = dropped.filter((d) => d.path === path).length;
  if (lost > 0) out.push(`budget: ${lost} item(s) dropped`);
  return out.length > 0 ? out : ['not in the package (no recorded reason)'];
}

/**
 * Why a gold file was not a scope candidate, tier by tier: past the cap (its tier), its rank in
 * the model-free search (tier 1 takes the top `searchSeeds`), co-change with a seed below the
 * minimum count (tier 3), an import two steps from a seed (tier 2 takes one step), an import
 * link to another gold file; "unreachable" when none of these holds.
 */
export async function diagnoseMiss(
  kb: KnowledgeBase,
  path: string,
  ctx: { task: string; seeds: string[]; overCap: Map<string, number>; gold: readonly string[]; minCoChange: number; searchSeeds: number; signal?: AbortSignal },
): Promise<string[]> {
  const file = kb.getFileByPath(path);
  if (!file) return ['not in the index at the parent commit'];
  if (file.skipReason) return [`not parsed (${file.skipReason})`];
  const out: string[] = [];
  const capped = ctx.overCap.get(path);
  if (capped !== undefined) out.push(`over the candidate cap (tier ${capped})`);
  const ranked = await searchRepository(kb, ctx.task, { limit: SEARCH_DIAGNOSIS_DEPTH, mode: 'keyword', signal: ctx.signal });
  const rank = ranked.findIndex((r) => r.path === path);
  out.push(rank >= 0 ? `tier 1: search rank ${rank + 1} (seeds take the top ${ctx.searchSeeds})` : `tier 1: not in the search's top ${SEARCH_DIAGNOSIS_DEPTH}`);
  const seedIds = ctx.seeds.map((s) => kb.getFileByPath(s)).filter((f): f is NonNullable<typeof f> => f !== null);
  const co = seedIds.flatMap((s) => kb.getCoChangeNeighbors(s.id, 1).filter((c) => c.fileId === file.id).map((c) => ({ seed: s.path, count: c.count })));
  const best = co.sort((a, b) => b.count - a.count)[0];
  if (best) out.push(`tier 3: co-changed ${best.count}× with seed ${best.seed} (minimum ${ctx.minCoChange})`);
  const mine = new Set(kb.getDependencies(file.id, 'both').map((d) => d.path));
  const via = seedIds.flatMap((s) => kb.getDependencies(s.id, 'both').filter((d) => mine.has(d.path)).map((d) => `${s.path} → ${d.path}`))[0];
  if (via) out.push(`tier 2 at depth 2: via ${via}`);
  const goldLink = ctx.gold.find((g) => g !== path && mine.has(g));
  if (goldLink) out.push(`imports or is imported by gold file ${goldLink}`);
  if (out.length === 1 && rank < 0) out.push('unreachable by tiers 1-3');
  return out;
}
