import type { Reason } from '../../../shared/contract/reasons';
import type { Db } from '../../platform/db/open';
import type { ModelCallRow } from '../../platform/logs/queries';
import type { RunOutcome } from '../../../shared/contract/training';

/** Which model calls to read: every filter optional, all that are given must hold. */
export interface CallQuery {
  stage?: string;
  model?: string;
  runId?: string;
  /** Calls made at or after this ISO time. */
  since?: string;
  /** Calls made before this ISO time. */
  until?: string;
  /** Only failed calls (true) or only answered ones (false). */
  failed?: boolean;
  /** Default 1000; the oldest calls first. */
  limit?: number;
}

/** One logged model call, whole. */
export interface LoggedCall {
  id: number;
  runId: string | null;
  stage: string | null;
  model: string;
  provider: string;
  system: string | null;
  prompt: string;
  response: string | null;
  params: Record<string, unknown> | null;
  promptTokens: number | null;
  completionTokens: number | null;
  latencyMs: number | null;
  errorCode: string | null;
  error: string | null;
  createdAt: string;
}

/** One retrieval decision with the model call behind it (input and output), when one was made. */
export interface LoggedDecision {
  id: number;
  runId: string;
  stage: string;
  subjectKind: string;
  subject: string;
  tier: string | null;
  /** included, excluded, over-cap, primary, … */
  decision: string;
  reasons: Reason[];
  /** The judgment facts kept beside the decision (verdict, read, pYes, raw), when judged. */
  judgment: Record<string, unknown> | null;
  /** yes / no of the model's judgment; null when no model judged (seeds, over-cap). */
  verdict: 'yes' | 'no' | null;
  /** Whether the verdict is a default-deny (an answer that was neither yes nor no). */
  defaultDeny: boolean;
  call: Pick<LoggedCall, 'id' | 'model' | 'system' | 'prompt' | 'response' | 'latencyMs' | 'errorCode'> | null;
  createdAt: string;
}

/** How a run ended, read generically from task_runs: the status a kind records, else success (declared in the contract). */
export type { RunOutcome };

/** The outcome of a task_runs row: complete/done/success → success, partial → partial, cancelled, running; anything else that ended → failed. */
export function outcomeOf(status: string, success: boolean | null): RunOutcome {
  if (status === 'running') return 'running';
  if (status === 'cancelled') return 'cancelled';
  if (status === 'partial') return 'partial';
  if (status === 'complete' || status === 'done' || status === 'success') return 'success';
  if (status === 'failed') return 'failed';
  return success === true ? 'success' : 'failed';
}

/** A task run with its outcome. */
export interface LoggedRun {
  runId: string;
  mode: string;
  title: string | null;
  task: string | null;
  subject: Record<string, unknown> | null;
  /** running, done, failed, cancelled (later: complete, partial). */
  status: string;
  /** 1 / 0 as recorded; null while running. */
  success: boolean | null;
  /** The outcome, read from status and success whatever kind of run wrote them. */
  outcome: RunOutcome;
  /** What the run returned (its validation results among them, for runs that validate). */
  result: unknown;
  error: { code: string | null; message: string | null } | null;
  startedAt: string;
  finishedAt: string | null;
}

/** A decision joined to the outcome of the run it was made in: the quality signal of a judgment. */
export interface DecisionOutcome {
  decision: LoggedDecision;
  /** The run's outcome; null when the run has no row here (an older log, another DB). */
  outcome: Pick<LoggedRun, 'status' | 'success' | 'mode' | 'outcome'> | null;
}

/** Calls and judgments of one stage in one time bucket. */
export interface StageBucketFigures {
  /** The bucket's start, ISO. */
  bucket: string;
  stage: string;
  calls: number;
  judged: number;
  defaultDenied: number;
}

/** Per-stage figures over the whole log. */
export interface StageStats {
  stage: string;
  /** Model calls of the stage. */
  calls: number;
  /** Calls that failed (error code set) / calls. */
  errorRate: number;
  /** Mean latency of the stage's calls in ms (null without calls that report one). */
  meanLatencyMs: number | null;
  /** Decisions of the stage. */
  decisions: number;
  /** Decisions a model judged (verdict present). */
  judged: number;
  /** Judged decisions whose reason is a default-deny / judged decisions. */
  defaultDenyRate: number;
  /** Judged decisions with verdict yes / judged decisions. */
  yesRate: number;
}


function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

const asObject = (value: unknown): Record<string, unknown> | null => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null);

/**
 * Read-only analysis of a raw database (the log of model calls, retrieval decisions and task
 * runs): what training modes retrieve from, as the knowledge base is what code modes retrieve
 * from. Rows are read as the writers (RawCallLog, RawDecisionLog, RawRunJournal) wrote them; the
 * JSON a decision keeps is parsed here so no caller reads English.
 */
export class LogAnalysis {
  constructor(private readonly db: Db) {}

  /** Whether the log holds anything a training mode could use (calls or decisions). */
  isEmpty(): boolean {
    const n = (table: string) => (this.db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    return n('model_calls') === 0 && n('retrieval_decisions') === 0;
  }

  /** Model calls by stage, model, run and time range, oldest first. */
  calls(q: CallQuery = {}): LoggedCall[] {
    const where: string[] = [];
    const p: Record<string, unknown> = { limit: q.limit ?? 1000 };
    const eq = (column: string, key: keyof CallQuery) => {
      if (q[key] === undefined) return;
      where.push(`${column} = @${key}`);
      p[key] = q[key];
    };
    eq('stage', 'stage');
    eq('model', 'model');
    eq('run_id', 'runId');
    if (q.since) {
      where.push('created_at >= @since');
      p.since = q.since;
    }
    if (q.until) {
      where.push('created_at < @until');
      p.until = q.until;
    }
    if (q.failed !== undefined) where.push(q.failed ? 'error_code is not null' : 'error_code is null');
    const rows = this.db.prepare(`select * from model_calls ${where.length ? `where ${where.join(' and ')}` : ''} order by created_at, id limit @limit`).all(p) as ModelCallRow[];
    return rows.map(callOf);

  }

  /** Retrieval decisions (of one run and/or stage), each with the call that judged it: input and verdict. */
  decisions(q: { runId?: string; stage?: string } = {}): LoggedDecision[] {
    const where: string[] = [];
    if (q.runId !== undefined) where.push('d.run_id = @runId');
    if (q.stage !== undefined) where.push('d.stage = @stage');
    const rows = this.db
      .prepare(
        `select d.id, d.run_id, d.stage, d.subject_kind, d.subject, d.tier, d.decision, d.reason, d.created_at,
           c.id as call_id, c.model, c.system, c.prompt, c.response, c.latency_ms, c.error_code
         from retrieval_decisions d left join model_calls c on c.id = d.model_call_id
         ${where.length ? `where ${where.join(' and ')}` : ''} order by d.id`,
      )
      .all(q) as Array<Record<string, unknown>>;
    return rows.map(decisionOf);
  }

  /** Task runs (of one mode), oldest first, with their outcome and result. */
  runs(q: { mode?: string } = {}): LoggedRun[] {
    const rows = this.db
      .prepare(`select * from task_runs ${q.mode !== undefined ? 'where mode = @mode' : ''} order by started_at, id`)
      .all(q) as Array<Record<string, unknown>>;
    return rows.map(runOf);
  }

  /** Every decision with the outcome of its run (left join: a decision without a run row keeps a null outcome). */
  decisionOutcomes(q: { stage?: string } = {}): DecisionOutcome[] {
    const outcomes = new Map(this.runs().map((r) => [r.runId, { status: r.status, success: r.success, mode: r.mode, outcome: r.outcome }]));
    return this.decisions(q).map((decision) => ({ decision, outcome: outcomes.get(decision.runId) ?? null }));
  }

  /** Volume, error rate and latency of each stage's calls; default-deny and yes rates of its judged decisions. */
  stageStats(): StageStats[] {
    const calls = this.db
      .prepare(
        `select coalesce(stage, '(none)') as stage, count(*) as calls, sum(error_code is not null) as failed, avg(latency_ms) as latency
         from model_calls group by coalesce(stage, '(none)')`,
      )
      .all() as Array<{ stage: string; calls: number; failed: number; latency: number | null }>;
    const stats = new Map<string, StageStats>();
    const of = (stage: string) => {
      let s = stats.get(stage);
      if (!s) stats.set(stage, (s = { stage, calls: 0, errorRate: 0, meanLatencyMs: null, decisions: 0, judged: 0, defaultDenyRate: 0, yesRate: 0 }));
      return s;
    };
    for (const c of calls) Object.assign(of(c.stage), { calls: c.calls, errorRate: c.calls ? c.failed / c.calls : 0, meanLatencyMs: c.latency === null ? null : Math.round(c.latency) });
    const tallies = new Map<string, { yes: number; deny: number }>();
    for (const d of this.decisions()) {
      const s = of(d.stage);
      s.decisions += 1;
      if (d.verdict === null) continue;
      s.judged += 1;
      const t = tallies.get(d.stage) ?? { yes: 0, deny: 0 };
      if (d.verdict === 'yes') t.yes += 1;
      if (d.defaultDeny) t.deny += 1;
      tallies.set(d.stage, t);
    }
    for (const [stage, t] of tallies) {
      const s = of(stage);
      s.yesRate = t.yes / s.judged;
      s.defaultDenyRate = t.deny / s.judged;
    }
    return [...stats.values()].sort((a, b) => a.stage.localeCompare(b.stage));
  }

  /** The first and last time anything was logged (calls or decisions); null when the log is empty. */
  span(): { first: string; last: string } | null {
    const row = this.db
      .prepare(`select min(t) as first, max(t) as last from (select created_at as t from model_calls union all select created_at as t from retrieval_decisions)`)
      .get() as { first: string | null; last: string | null };
    return row.first && row.last ? { first: row.first, last: row.last } : null;
  }

  /**
   * Calls, judged decisions and default-denies per stage per time bucket (`hour`: the first 13
   * characters of the ISO time, `day`: the first 10), oldest first.
   */
  stageSeries(bucket: 'hour' | 'day'): StageBucketFigures[] {
    const width = bucket === 'hour' ? 13 : 10;
    const start = (t: string) => (bucket === 'hour' ? `${t.slice(0, 13)}:00:00.000Z` : `${t.slice(0, 10)}T00:00:00.000Z`);
    const out = new Map<string, StageBucketFigures>();
    const of = (b: string, stage: string) => {
      const key = `${b}|${stage}`;
      let f = out.get(key);
      if (!f) out.set(key, (f = { bucket: start(b), stage, calls: 0, judged: 0, defaultDenied: 0 }));
      return f;
    };
    const calls = this.db
      .prepare(`select substr(created_at, 1, ${width}) as b, coalesce(stage, '(none)') as stage, count(*) as n from model_calls group by b, coalesce(stage, '(none)')`)
      .all() as Array<{ b: string; stage: string; n: number }>;
    for (const c of calls) of(c.b, c.stage).calls += c.n;
    for (const d of this.decisions()) {
      if (d.verdict === null) continue;
      const f = of(d.createdAt.slice(0, width), d.stage);
      f.judged += 1;
      if (d.defaultDeny) f.defaultDenied += 1;
    }
    return [...out.values()].sort((a, b) => a.bucket.localeCompare(b.bucket) || a.stage.localeCompare(b.stage));
  }

  /** The latencies (ms) of each model's answered calls, ascending: what percentiles are read from. */
  latencies(): Map<string, number[]> {
    const rows = this.db.prepare(`select model, latency_ms as ms from model_calls where latency_ms is not null and error_code is null order by model, latency_ms`).all() as Array<{ model: string; ms: number }>;
    const out = new Map<string, number[]>();
    for (const r of rows) out.set(r.model, [...(out.get(r.model) ?? []), r.ms]);
    return out;
  }

  /** Task runs counted by kind and status. */
  runCounts(): Array<{ mode: string; status: string; count: number }> {
    return this.db.prepare(`select mode, status, count(*) as count from task_runs group by mode, status order by mode, status`).all() as Array<{ mode: string; status: string; count: number }>;
  }

  /** Calls and decisions in the log (what a training mode could use). */
  volume(): { calls: number; decisions: number; runs: number } {
    const n = (table: string) => (this.db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    return { calls: n('model_calls'), decisions: n('retrieval_decisions'), runs: n('task_runs') };
  }

  /**
   * The model calls of orchestrator passes of one type, with the pass's task run outcome: what
   * preference pairs are read from (part plans and the adjustments after each step).
   */
  passCalls(passType: string): Array<{ orchestratorRunId: string; sequence: number; runId: string; outcome: RunOutcome | null; call: LoggedCall }> {
    const rows = this.db
      .prepare(
        `select p.orchestrator_run_id as orun, p.sequence as seq, p.task_run_id as run_id, r.status as status, r.success as success, c.id as call_id
         from orchestrator_passes p join model_calls c on c.run_id = p.task_run_id left join task_runs r on r.id = p.task_run_id
         where p.pass_type = ? and c.error_code is null order by p.orchestrator_run_id, p.sequence, c.id`,
      )
      .all(passType) as Array<{ orun: string; seq: number; run_id: string; status: string | null; success: number | null; call_id: number }>;
    const calls = new Map(rows.length ? this.callsById(rows.map((r) => r.call_id)).map((c) => [c.id, c]) : []);
    return rows.flatMap((r) => {
      const call = calls.get(r.call_id);
      return call ? [{ orchestratorRunId: r.orun, sequence: r.seq, runId: r.run_id, outcome: r.status === null ? null : outcomeOf(r.status, r.success === null ? null : r.success === 1), call }] : [];
    });
  }

  private callsById(ids: number[]): LoggedCall[] {
    const out: LoggedCall[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = this.db.prepare(`select * from model_calls where id in (${chunk.map(() => '?').join(',')})`).all(...chunk) as ModelCallRow[];
      out.push(...rows.map(callOf));
    }
    return out;
  }
}

function callOf(r: ModelCallRow): LoggedCall {
  return {
    id: r.id,
    runId: r.run_id,
    stage: r.stage,
    model: r.model,
    provider: r.provider,
    system: r.system,
    prompt: r.prompt,
    response: r.response,
    params: asObject(parseJson(r.params_json)),
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    latencyMs: r.latency_ms,
    errorCode: r.error_code,
    error: r.error,
    createdAt: r.created_at,
  };
}

function decisionOf(r: Record<string, unknown>): LoggedDecision {
  const stored = asObject(parseJson(r.reason as string | null));
  const reasons = Array.isArray(stored?.reasons) ? (stored.reasons as Reason[]) : [];
  const judgment = asObject(stored?.judgment);
  const verdict = judgment?.verdict === 'yes' || judgment?.verdict === 'no' ? judgment.verdict : null;
  return {
    id: r.id as number,
    runId: r.run_id as string,
    stage: r.stage as string,
    subjectKind: r.subject_kind as string,
    subject: r.subject as string,
    tier: (r.tier as string | null) ?? null,
    decision: r.decision as string,
    reasons,
    judgment,
    verdict,
    defaultDeny: reasons.some((x) => x.kind === 'default-deny'),
    call:
      r.call_id === null
        ? null
        : {
            id: r.call_id as number,
            model: r.model as string,
            system: r.system as string | null,
            prompt: r.prompt as string,
            response: r.response as string | null,
            latencyMs: r.latency_ms as number | null,
            errorCode: r.error_code as string | null,
          },
    createdAt: r.created_at as string,
  };
}

function runOf(r: Record<string, unknown>): LoggedRun {
  const code = (r.error_code as string | null) ?? null;
  const message = (r.error as string | null) ?? null;
  return {
    runId: r.id as string,
    mode: r.mode as string,
    title: (r.title as string | null) ?? null,
    task: (r.task as string | null) ?? null,
    subject: asObject(parseJson((r.subject_json as string | null) ?? null)),
    status: r.status as string,
    success: r.success === null || r.success === undefined ? null : r.success === 1,
    outcome: outcomeOf(r.status as string, r.success === null || r.success === undefined ? null : r.success === 1),
    result: parseJson((r.result_json as string | null) ?? null),
    error: code || message ? { code, message } : null,
    startedAt: r.started_at as string,
    finishedAt: (r.finished_at as string | null) ?? null,
  };
}
