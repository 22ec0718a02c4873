/**
 * The plan stage of "Check on this repository": the plan model asked to plan N tasks of the
 * repository's own history (each commit's message, with the files it changed as the scope), once
 * each, with the planner's own prompt and schema; the share of replies that are valid plans (the
 * plan checks of planValidate.ts: shape, files that exist or are new, no code, no cycle).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PLAN_JSON_SCHEMA } from '../../../shared/contract/plans';
import type { LlmClient } from '../../platform/llm/client';
import type { ResolvedModel } from '../../platform/llm/router';
import { PLAN_SYSTEM, planPrompt, readPlanReply } from '../../features/plans';
import { throwIfAborted } from '../../platform/runtime/runs';
import type { DatasetCommit } from './dataset';

/** What the plan check measured. */
export interface PlanCheck {
  n: number;
  valid: number;
  latencies: number[];
  tokens: number;
  /** Calls that failed, and the first failure's message (counted as invalid plans). */
  failed: number;
  firstError?: string;
}

/** Plan each task once with `model`; a call that fails counts as an invalid plan (cancellation stops the check). */
export async function checkPlans(options: { llm: LlmClient; model: ResolvedModel; repoRoot: string; commits: readonly Pick<DatasetCommit, 'task' | 'gold'>[]; runId?: string; signal?: AbortSignal; onItem?(done: number, total: number): void }): Promise<PlanCheck> {
  const out: PlanCheck = { n: options.commits.length, valid: 0, latencies: [], tokens: 0, failed: 0 };
  for (const [i, c] of options.commits.entries()) {
    throwIfAborted(options.signal);
    options.onItem?.(i, options.commits.length);
    const started = performance.now();
    try {
      const reply = await options.llm.complete(planPrompt(c.task, c.gold, (path) => `### ${path}`), {
        stage: 'plan',
        model: options.model,
        system: PLAN_SYSTEM,
        format: PLAN_JSON_SCHEMA as unknown as Record<string, unknown>,
        temperature: 0,
        ...(options.runId ? { runId: options.runId } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      out.tokens += reply.promptTokens + reply.completionTokens;
      // The files the task changed exist at its commit; a file the plan creates is allowed by the checks.
      if (readPlanReply(reply.text, { hasFile: (path) => c.gold.includes(path) || existsSync(join(options.repoRoot, path)) }).ok) out.valid += 1;
    } catch (error) {
      if (options.signal?.aborted) throw error;
      out.failed += 1;
      out.firstError ??= error instanceof Error ? error.message : String(error);
    }
    out.latencies.push(Math.round(performance.now() - started));
  }
  return out;
}
