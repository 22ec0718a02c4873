/**
 * The retrieval pipeline as callers use it (`cra retrieve`, the app's retrieve run, the solve
 * orchestrator, `cra eval --pipeline`): an explicit stage list by name, a session per task, the
 * runner, and the context package within the budget. The session is handed back open: the caller
 * closes it (archived into raw), or keeps it for refinement re-entry ({@link refineContext}).
 */
import type { ContextPackage } from '../../../shared/contract/retrieval';
import { RETRIEVAL_STAGE_NAMES, type RetrievalStageName } from '../../../shared/contract/stages';
import type { Db } from '../../platform/db/open';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../platform/llm/client';
import type { CallLogger } from '../../platform/llm/types';
import type { DecisionSink } from './decisionLog';
import type { OnJudged } from './judge';
import { buildPackage } from './package';
import { RetrievalSession, sweepAbandonedSessions } from './session';
import { runPipeline, type PipelineResult, type RetrievalStage, type StageContext } from './stage';
import { PrecisionStage, type PrecisionOptions } from './stages/precision';
import { RefilterStage } from './stages/refilter';
import { RoutingStage } from './stages/routing';
import { ScopeStage, type ScopeOptions } from './stages/scope';
import { SimilarityStage, type SimilarityOptions } from './stages/similarity';
import type { TaskRecord } from './taskAnalysis';

/** Every stage a list may name, in the order they may appear: the contract's list. */
export const STAGE_NAMES = RETRIEVAL_STAGE_NAMES;
/** One stage name. */
export type StageName = RetrievalStageName;

/** Settings of the stages (from [retrieval] in the config, or the caller). */
export interface StageOptions {
  scope?: ScopeOptions;
  precision?: PrecisionOptions;
  similarity?: SimilarityOptions;
}

/** The stages of a list, in its order (a request's list is checked by the contract: retrievalStageListSchema). */
export function buildStages(list: readonly StageName[], options: StageOptions = {}): RetrievalStage[] {
  return list.map((name, i): RetrievalStage => {
    switch (name) {
      case 'routing':
        return new RoutingStage(list.slice(i + 1));
      case 'scope':
        return new ScopeStage(options.scope);
      case 'precision':
        return new PrecisionStage(options.precision);
      case 'similarity':
        return new SimilarityStage(options.similarity);
      case 'refilter':
        return new RefilterStage();
    }
  });
}

/** What a retrieval uses besides the task: the index, the model client, the logs, the run. */
export interface RetrievalDeps {
  kb: KnowledgeBase;
  llm: LlmClient;
  decisions: DecisionSink;
  runId: string;
  /** Folder of the repository's session files (`<data>/repos/<id>/sessions`). */
  sessionsDir: string;
  /** The current text of a repository file (confined to the repository), null when unreadable. */
  readSource: (path: string) => string | null;
  log?: CallLogger;
  signal?: AbortSignal;
  /** Judgment calls at once (default 1; results do not depend on it). */
  concurrency?: number;
  safetyMargin?: number;
  /**
   * Sweep the session files killed runs left before this retrieval (default true). A caller that
   * runs many retrievals (a solve run, one per pass) sweeps at its first only: the sweep opens
   * every session file in the folder, that caller's own open ones included.
   */
  sweep?: boolean;
  onJudged?: OnJudged;
  onStage?: (name: string, context: StageContext) => void;
  onStageStart?: (name: string) => void;
}

/** One retrieval: the analysed task, the explicit stage list, the budget in tokens. */
export interface RetrievalRequest {
  task: TaskRecord;
  stages: readonly StageName[];
  budgetTokens: number;
  options?: StageOptions;
}

/** A finished retrieval: the package, the runner's result, and the task's session (open). */
export interface Retrieval {
  package: ContextPackage;
  result: PipelineResult;
  session: RetrievalSession;
}

/**
 * Run a retrieval: sweep the session files killed runs left (archived into `archiveTo`; unless
 * `deps.sweep` is false), create
 * the task's session, run the stages writing it between them, and build the package within the
 * budget. On failure the session is closed — archived into `archiveTo` when given — and deleted,
 * and the error goes on: nothing half-done is left to read back.
 */
export async function retrieve(request: RetrievalRequest, deps: RetrievalDeps, archiveTo?: Db): Promise<Retrieval> {
  const stages = buildStages(request.stages, request.options);
  if (deps.sweep !== false) sweepAbandonedSessions(deps.sessionsDir, archiveTo);
  const session = RetrievalSession.create(deps.sessionsDir, request.task.id, deps.runId);
  try {
    const result = await runPipeline({ stages, kb: deps.kb, task: request.task, llm: deps.llm, runId: deps.runId, budgetTokens: request.budgetTokens, decisions: deps.decisions, session, loop: 0, readSource: deps.readSource, ...optional(deps) });
    const pkg = buildPackage({ task: request.task, files: result.context.files, budgetTokens: request.budgetTokens, readSource: deps.readSource, kb: deps.kb, ...(deps.safetyMargin !== undefined ? { safetyMargin: deps.safetyMargin } : {}), ...(result.context.groups ? { groups: result.context.groups } : {}) });
    return { package: pkg, result, session };
  } catch (error) {
    session.close(archiveTo ? { raw: archiveTo, runId: deps.runId } : undefined);
    throw error;
  }
}

/** The optional parts of the deps, as the runner takes them. */
export function optional(deps: RetrievalDeps) {
  return {
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(deps.concurrency ? { concurrency: deps.concurrency } : {}),
    ...(deps.safetyMargin !== undefined ? { safetyMargin: deps.safetyMargin } : {}),
    ...(deps.onJudged ? { onJudged: deps.onJudged } : {}),
    ...(deps.onStage ? { onStage: deps.onStage } : {}),
    ...(deps.onStageStart ? { onStageStart: deps.onStageStart } : {}),
  };
}
