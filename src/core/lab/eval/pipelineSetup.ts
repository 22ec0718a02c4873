import type { BudgetInput, EvalJudgeKind } from '../../../shared/contract';
import { AppError } from '../../../shared/contract';
import { loadConfig } from '../../platform/config/load';
import { LlmClient } from '../../platform/llm/client';
import { ModelRouter } from '../../platform/llm/router';
import { UserCallLog } from '../../platform/logs/callLog';
import { effectiveBudget, type PrecisionOptions, type ScopeOptions } from '../../features/retrieval';
import type { PipelineEvalOptions } from './pipelineTask';
import { userConfigPath, userRawDbPath } from '../../platform/layout';

/** What `eval/start` was given for the pipeline (validated by the contract). */
export interface PipelineFlags {
  judge: EvalJudgeKind;
  budget?: BudgetInput;
  concurrency?: number;
  scope?: ScopeOptions;
  precision?: PrecisionOptions;
}

/**
 * The pipeline evaluation's options from the request and the user config in `dataDir`: the judge
 * (the model judge resolves the scope model now, so a missing [models] says `cra init` before any
 * task runs), and the budget (the request's over the config's [budget]; `tokens` as a window with
 * nothing kept back), checked against the config's numbers.
 */
export function pipelineEvalOptions(dataDir: string, flags: PipelineFlags): PipelineEvalOptions {
  const { judge } = flags;
  const config = loadConfig({ userFile: userConfigPath(dataDir) });
  const given = flags.budget;
  const budget =
    given?.tokens !== undefined
      ? { contextWindow: given.tokens, reservedTokens: 0 }
      : { contextWindow: given?.contextWindow ?? config.values.budget.context_window, reservedTokens: given?.reservedTokens ?? config.values.budget.reserved_tokens };
  try {
    effectiveBudget(budget);
  } catch (error) {
    throw new AppError('VALIDATION', (error as Error).message);
  }
  const out: PipelineEvalOptions = { judge, budget, ...(flags.scope ? { scope: flags.scope } : {}), ...(flags.precision ? { precision: flags.precision } : {}), ...(flags.concurrency ? { concurrency: flags.concurrency } : {}) };
  if (judge !== 'model') return out;
  const router = new ModelRouter(config);
  router.resolve('reasoning', 'scope');
  const llm = new LlmClient({ router: () => router, log: new UserCallLog(userRawDbPath(dataDir)) });
  return { ...out, llm, enrich: config.values.models?.overrides.task_analysis !== undefined };
}
