import type { SymbolRole } from '../../shared/contract/retrieval';
import type { Reason } from '../../shared/contract/reasons';
import type { KnowledgeBase } from '../kb/knowledgeBase';
import type { LlmClient } from '../llm/client';
import type { CallLogger } from '../llm/types';
import type { DecisionRecord, DecisionSink } from './decisionLog';
import type { BinaryJudge } from './judge';
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
  symbolId: number;
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
}

/** The runner's result: the last stage's context and the stages that ran. */
export interface PipelineResult {
  context: StageContext;
  stages: Array<{ name: string; files: number; decisions: number; ms: number }>;
}

/**
 * Run an explicit, non-empty list of stages in order, threading the context and its budget, and
 * writing each stage's decisions to the raw log under the stage's name as soon as it ends. A stage
 * that leaves the context over its budget is a bug and stops the run.
 */
export async function runPipeline(input: PipelineInput): Promise<PipelineResult> {
  if (input.stages.length === 0) throw new Error('No retrieval stages given: name them explicitly, e.g. --stages scope,precision.');
  const names = input.stages.map((s) => s.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new Error(`Retrieval stage "${dup}" is listed twice.`);
  if (!(input.budgetTokens > 0)) throw new Error(`The retrieval budget must be above 0 tokens (got ${input.budgetTokens}).`);
  let context: StageContext = {
    runId: input.runId,
    files: [],
    budget: { tokens: input.budgetTokens, used: 0 },
    decisions: [],
    ...(input.log ? { log: input.log } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.concurrency ? { concurrency: input.concurrency } : {}),
    ...(input.judge ? { judge: input.judge } : {}),
  };
  const stages: PipelineResult['stages'] = [];
  for (const stage of input.stages) {
    if (input.signal?.aborted) throw new Error('Retrieval cancelled.');
    const started = performance.now();
    context = await stage.run({ ...context, decisions: [] }, input.kb, input.task, input.llm);
    const records = context.decisions.map((d) => ({ ...d, runId: input.runId, stage: d.stage ?? stage.name }));
    if (input.decisions.recordAll) input.decisions.recordAll(records);
    else for (const d of records) input.decisions.record(d);
    if (context.budget.used > context.budget.tokens) throw new Error(`Stage ${stage.name} left ${context.budget.used} tokens in a ${context.budget.tokens}-token budget.`);
    stages.push({ name: stage.name, files: context.files.length, decisions: context.decisions.length, ms: Math.round(performance.now() - started) });
    input.onStage?.(stage.name, context);
    context = { ...context, decisions: [] };
  }
  return { context, stages };
}
