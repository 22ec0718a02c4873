import type { ModelCallDetail, ModelCallSummary } from '../../../shared/contract';
import { AppError } from '../../../shared/contract';
import type { Db } from '../db/open';
import type { TokenLogprob } from '../llm/types';
import { pYesFrom } from '../llm/pYes';

/** Filters of the Logs table. */
export interface CallFilters {
  runId?: string;
  stage?: string;
  model?: string;
  errorsOnly?: boolean;
  limit: number;
  offset: number;
}

/** A row of raw `model_calls`, as `select *` returns it. */
export interface ModelCallRow {
  id: number;
  created_at: string;
  run_id: string | null;
  stage: string | null;
  role: string | null;
  provider: string;
  base_url: string | null;
  model: string;
  system: string | null;
  prompt: string;
  response: string | null;
  params_json: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  latency_ms: number | null;
  error_code: string | null;
  error: string | null;
}

/** P(yes) of a yes/no judgment, from the token probabilities logged in its params (undefined for other calls). */
function pYesOf(logprobsJson: string | null): number | undefined {
  if (!logprobsJson) return undefined;
  try {
    const logprobs = JSON.parse(logprobsJson) as unknown;
    return Array.isArray(logprobs) ? pYesFrom(logprobs as TokenLogprob[]) : undefined;
  } catch {
    return undefined;
  }
}

function summary(r: Pick<ModelCallRow, 'id' | 'created_at' | 'run_id' | 'stage' | 'role' | 'provider' | 'model' | 'prompt_tokens' | 'completion_tokens' | 'latency_ms' | 'error_code'> & { preview: string | null; logprobs?: string | null }): ModelCallSummary {
  const pYes = pYesOf(r.logprobs ?? null);
  return {
    id: r.id,
    createdAt: r.created_at,
    runId: r.run_id,
    stage: r.stage,
    role: r.role,
    provider: r.provider,
    model: r.model,
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    latencyMs: r.latency_ms,
    errorCode: r.error_code,
    preview: (r.preview ?? '').replace(/\s+/g, ' ').trim(),
    ...(pYes !== undefined ? { pYes } : {}),
  };
}

/** Model calls newest first, filtered and paged, with the total that matched. */
export function listCalls(db: Db, f: CallFilters): { total: number; calls: ModelCallSummary[] } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (f.runId) {
    // A solve run's calls are logged under its passes' task runs (<solve run>-p<n>): the run's id
    // (the solve run's or its task run's) takes them in too.
    where.push(`(run_id = @runId or run_id in (select p.task_run_id from orchestrator_passes p join orchestrator_runs r on r.id = p.orchestrator_run_id where r.id = @runId or r.task_run_id = @runId))`);
    params.runId = f.runId;
  }
  if (f.stage) {
    where.push('stage = @stage');
    params.stage = f.stage;
  }
  if (f.model) {
    where.push('model = @model');
    params.model = f.model;
  }
  if (f.errorsOnly) where.push('error_code is not null');
  const clause = where.length ? `where ${where.join(' and ')}` : '';
  const total = (db.prepare(`select count(*) as n from model_calls ${clause}`).get(params) as { n: number }).n;
  const rows = db
    .prepare(
      `select id, created_at, run_id, stage, role, provider, model, prompt_tokens, completion_tokens, latency_ms, error_code,
         substr(coalesce(error, response, ''), 1, 160) as preview,
         case when params_json like '%"logprobs"%' then json_extract(params_json, '$.logprobs') end as logprobs
       from model_calls ${clause} order by id desc limit @limit offset @offset`,
    )
    .all({ ...params, limit: f.limit, offset: f.offset }) as Array<Parameters<typeof summary>[0]>;
  return { total, calls: rows.map(summary) };
}

/** One call, whole. */
export function getCall(db: Db, id: number): ModelCallDetail {
  const r = db.prepare('select * from model_calls where id = ?').get(id) as ModelCallRow | undefined;
  if (!r) throw new AppError('NOT_FOUND', `No model call with id ${id}.`);
  let params: Record<string, unknown> = {};
  try {
    params = r.params_json ? (JSON.parse(r.params_json) as Record<string, unknown>) : {};
  } catch {
    params = { unparsed: r.params_json };
  }
  return {
    ...summary({ ...r, preview: r.error ?? r.response, logprobs: Array.isArray(params.logprobs) ? JSON.stringify(params.logprobs) : null }),
    baseUrl: r.base_url,
    system: r.system,
    prompt: r.prompt,
    response: r.response,
    params,
    error: r.error,
  };
}
