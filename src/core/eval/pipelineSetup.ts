import { AppError } from '../../shared/contract';
import { loadConfig } from '../config/load';
import { LlmClient } from '../llm/client';
import { ModelRouter } from '../llm/router';
import { UserCallLog } from '../logs/callLog';
import { effectiveBudget } from '../retrieval/package';
import type { PrecisionOptions } from '../retrieval/stages/precision';
import type { ScopeOptions } from '../retrieval/stages/scope';
import { EVAL_JUDGES, type EvalJudgeKind } from './pipelineJudges';
import type { PipelineEvalOptions } from './pipelineTask';
import { userConfigPath, userRawDbPath } from '../layout';

/** What `cra eval --pipeline` was given. */
export interface PipelineFlags {
  judge: string;
  contextWindow?: number;
  reservedTokens?: number;
  concurrency?: number;
  scope?: ScopeOptions;
  precision?: PrecisionOptions;
}

/**
 * The pipeline evaluation's options from the command's flags and the user config in `dataDir`:
 * the judge (the model judge resolves the scope model now, so a missing [models] says `cra init`
 * before any task runs), and the budget (flags over the config's [budget]), validated.
 */
export function pipelineEvalOptions(dataDir: string, flags: PipelineFlags): PipelineEvalOptions {
  if (!(EVAL_JUDGES as readonly string[]).includes(flags.judge)) throw new AppError('VALIDATION', `Unknown judge "${flags.judge}"; use one of ${EVAL_JUDGES.join(', ')}.`);
  const judge = flags.judge as EvalJudgeKind;
  const config = loadConfig({ userFile: userConfigPath(dataDir) });
  const budget = { contextWindow: flags.contextWindow ?? config.values.budget.context_window, reservedTokens: flags.reservedTokens ?? config.values.budget.reserved_tokens };
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
