import type { SymbolRole } from '../../../shared/contract/retrieval';
import type { Reason } from '../../../shared/contract/reasons';
import type { JudgeStage } from '../../../shared/contract/stages';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../platform/llm/client';
import type { CallLogger } from '../../platform/llm/types';
import { AppError } from '../../../shared/contract';
import { TokenMeter } from './budget';
import type { DecisionRecord, DecisionSink } from './decisionLog';
import type { BinaryJudge, Judged, JudgeSetup, OnJudged } from './judge';
import type { RetrievalSession, StageProgressEntry } from './session';
import type { TaskRecord } from './taskAnalysis';

/** A file in the working context, with the tier and relation that brought it and every reason since. */
export interface ContextFile {
  fileId: number;
  path: string;
  /** 0 plan, 1 seed, 2 import dependency, 3 co-change, 4 metadata. */
  tier: number;
  /** Why it is here: the relation first, then verdicts. */
  reasons: Reason[];
  /** P(yes) of its judgment, when the server returned log-probabilities. */
  pYes?: number;
  /** The symbols the precision stage kept, with their role (absent before precision runs). */
  symbols?: ContextSymbol[];
}


export type { SymbolRole };

/** A symbol kept by the precision stage. */
export interface ContextSymbol {
  /** Null for a library symbol (defined outside the repository; its signature is the import that brings it). */
  symbolId: number | null;
  name: string;
  qualifiedName: string;
  kind: string;
  signature: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  parentId: number | null;
  role: SymbolRole;
  /** Why: how it was found (named, linked), then each pass's verdict. */
  reasons: Reason[];
  /** P(yes) of pass 1, when known (orders symbols of a file). */
  pYes?: number;
}

/** The token budget threaded through the stages. */
export interface StageBudget {
  /** Effective budget: context window − reserved tokens. */
  tokens: number;
  /** Tokens the context holds so far (estimated). */
  used: number;
}

/** The data threaded through the pipeline: each stage gets the previous one's and returns a refined copy. */
export interface StageContext {
  runId: string;
  files: ContextFile[];
  budget: StageBudget;
  /**
   * Decisions made by the stage now running; the runner writes them to raw and clears the list.
   * `stage` names a sub-step (precision_pass1…3) and defaults to the stage's name.
   */
  decisions: Array<Omit<DecisionRecord, 'runId' | 'stage'> & { stage?: string }>;
  /** Where the stage's model calls are logged (a repository run passes its raw DB). */
  log?: CallLogger;
  signal?: AbortSignal;
  /** Judgment calls at once (default 1). */
  concurrency?: number;
  /** Answers the stages' binary judgments instead of the model (evaluation only; default: the model). */
  judge?: BinaryJudge;
  /** Groups of related files (the similarity stage's output): paths, each group in priority order. */
  groups?: string[][];
  /** Stages the routing call chose not to run (the runner skips them). */
  skipStages?: string[];
  /** Where the server's exact token counts of the judgments go (the runner reads them per stage). */
  meter?: TokenMeter;
  /** Judgment progress of the stage running: call stage name (precision_pass2…), done, total. */
  onJudged?: OnJudged;
  /** The current text of a repository file (null when unreadable); stages that weigh tokens need it. */
  readSource?: (path: string) => string | null;
  /** Safety margin of token estimates (default 0.1). */
  safetyMargin?: number;
}

/** What every binary judgment of a stage shares, from the context: the model, run, log, limits and progress. */
export function judgeSetupOf(context: StageContext, llm: LlmClient, task: TaskRecord, stage: JudgeStage, instruct: string): JudgeSetup {
  return {
    llm,
    stage,
    instruct,
    task: task.text,
    runId: context.runId,
    ...(context.log ? { log: context.log } : {}),
    ...(context.signal ? { signal: context.signal } : {}),
    ...(context.concurrency ? { concurrency: context.concurrency } : {}),
    ...(context.meter ? { meter: context.meter } : {}),
    ...(context.judge ? { judge: context.judge } : {}),
    ...(context.onJudged ? { onJudged: (done: number, total: number, judged?: Judged) => context.onJudged?.(stage, done, total, judged) } : {}),
  };
}

/** The part of a context that is data (what the session keeps): files, budget, groups. */
export function serializeContext(context: StageContext): SerializedContext {
  return { runId: context.runId, files: context.files, budget: context.budget, ...(context.groups ? { groups: context.groups } : {}) };
}

/** A context as the session stores it. */
export interface SerializedContext {
  runId: string;
  files: ContextFile[];
  budget: StageBudget;
  groups?: string[][];
}

/** One retrieval stage: deterministic pre-filtering, then its model judgments. Stateless. */
export interface RetrievalStage {
  readonly name: string;
  run(context: StageContext, kb: KnowledgeBase, task: TaskRecord, llm: LlmClient): Promise<StageContext>;
}

/** What the runner needs besides the stages. */
export interface PipelineInput {
  stages: readonly RetrievalStage[];
  kb: KnowledgeBase;
  task: TaskRecord;
  llm: LlmClient;
  runId: string;
  /** Effective budget in tokens (window − reserved). */
  budgetTokens: number;
  decisions: DecisionSink;
  log?: CallLogger;
  signal?: AbortSignal;
  concurrency?: number;
  /** Answers the binary judgments instead of the model (evaluation only). */
  judge?: BinaryJudge;
  /** Called after each stage (progress). */
  onStage?: (name: string, context: StageContext) => void;
  /** Called when a stage starts (progress: the phase changes). */
  onStageStart?: (name: string) => void;
  /** Called after each judgment: the call stage (scope, precision_pass1…), done and total of that pass. */
  onJudged?: OnJudged;
  /** The task's session: the runner writes the task, budget and stage list first, each stage's output and progress after it, and `final_context` only when every stage ended. */
  session?: RetrievalSession;
  /** 0 for a first retrieval, n for the n-th refinement (recorded in stage_progress). */
  loop?: number;
  readSource?: (path: string) => string | null;
  safetyMargin?: number;
}

/** The runner's result: the last stage's context and the stages that ran (or were skipped by routing). */
export interface PipelineResult {
  context: StageContext;
  stages: Array<{ name: string; files: number; decisions: number; ms: number; skipped?: boolean; usage?: StageProgressEntry['usage'] }>;
}

/**
 * Run an explicit, non-empty list of stages in order, threading the context and its budget, and
 * writing each stage's decisions to the raw log under the stage's name as soon as it ends. With a
 * session, the runner writes the task, budget and stage list before the first stage, each stage's
 * output and progress (with the server's exact token counts) after it, and `final_context` only
 * once every stage ended — so a run killed half-way leaves no final context to read back. A stage
 * that leaves the context over its budget is a bug and stops the run.
 */
export async function runPipeline(input: PipelineInput): Promise<PipelineResult> {
  if (input.stages.length === 0) throw new Error('No retrieval stages given: name them explicitly, e.g. --stages scope,precision.');
  const names = input.stages.map((s) => s.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new Error(`Retrieval stage "${dup}" is listed twice.`);
  if (!(input.budgetTokens > 0)) throw new Error(`The retrieval budget must be above 0 tokens (got ${input.budgetTokens}).`);
  const meter = new TokenMeter();
  let context: StageContext = {
    runId: input.runId,
    files: [],
    budget: { tokens: input.budgetTokens, used: 0 },
    decisions: [],
    meter,
    ...(input.log ? { log: input.log } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.concurrency ? { concurrency: input.concurrency } : {}),
    ...(input.judge ? { judge: input.judge } : {}),
    ...(input.onJudged ? { onJudged: input.onJudged } : {}),
    ...(input.readSource ? { readSource: input.readSource } : {}),
    ...(input.safetyMargin !== undefined ? { safetyMargin: input.safetyMargin } : {}),
  };
  const loop = input.loop ?? 0;
  input.session?.setMany({ task: input.task, budget: { tokens: input.budgetTokens, ...(input.safetyMargin !== undefined ? { safetyMargin: input.safetyMargin } : {}) }, stages: names });
  const stages: PipelineResult['stages'] = [];
  for (const stage of input.stages) {
    if (input.signal?.aborted) throw new AppError('CANCELLED', 'Retrieval cancelled.');
    if (context.skipStages?.includes(stage.name)) {
      stages.push({ name: stage.name, files: context.files.length, decisions: 0, ms: 0, skipped: true });
      input.session?.recordStage(stage.name, null, { name: stage.name, status: 'skipped', loop, files: context.files.length, decisions: 0, ms: 0 });
      continue;
    }
    input.onStageStart?.(stage.name);
    const started = performance.now();
    const before = meter.snapshot();
    try {
      context = await stage.run({ ...context, decisions: [] }, input.kb, input.task, input.llm);
    } catch (error) {
      input.session?.recordStage(stage.name, null, { name: stage.name, status: 'failed', loop, files: context.files.length, decisions: 0, ms: Math.round(performance.now() - started) });
      throw error;
    }
    const records = context.decisions.map((d) => ({ ...d, runId: input.runId, stage: d.stage ?? stage.name }));
    if (input.decisions.recordAll) input.decisions.recordAll(records);
    else for (const d of records) input.decisions.record(d);
    if (context.budget.used > context.budget.tokens) throw new Error(`Stage ${stage.name} left ${context.budget.used} tokens in a ${context.budget.tokens}-token budget.`);
    const usage = usageSince(before, meter.snapshot());
    const entry = { name: stage.name, files: context.files.length, decisions: context.decisions.length, ms: Math.round(performance.now() - started), ...(Object.keys(usage).length ? { usage } : {}) };
    stages.push(entry);
    input.session?.recordStage(stage.name, serializeContext(context), { ...entry, status: 'done', loop });
    input.onStage?.(stage.name, context);
    context = { ...context, decisions: [] };
  }
  input.session?.set('final_context', serializeContext(context));
  return { context, stages };
}

/** Per call stage, what was counted between two snapshots. */
function usageSince(before: Record<string, TokenUsageLike>, after: Record<string, TokenUsageLike>): NonNullable<StageProgressEntry['usage']> {
  const out: NonNullable<StageProgressEntry['usage']> = {};
  for (const [k, a] of Object.entries(after)) {
    const b = before[k] ?? { calls: 0, promptTokens: 0, completionTokens: 0, failed: 0 };
    if (a.calls > b.calls) out[k] = { calls: a.calls - b.calls, promptTokens: a.promptTokens - b.promptTokens, completionTokens: a.completionTokens - b.completionTokens, failed: a.failed - b.failed };
  }
  return out;
}

type TokenUsageLike = { calls: number; promptTokens: number; completionTokens: number; failed: number };
