import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import type { LlmClient } from '../../platform/llm/client';
import type { ScriptedReply } from '../../testing/ollamaTestServer';
import { loopbackClient, useRetrievalHarness } from '../../testing/retrievalHarness';
import { RawDecisionLog } from './decisionLog';
import { DEFAULT_SAFETY_MARGIN, estimateTokens, renderMarkdown } from './package';
import { retrievalStageListSchema } from '../../../shared/contract/stages';
import { retrieve, type RetrievalDeps, type StageName } from './pipeline';
import { refineContext, validateRefinementRequest, type RefinementRequest } from './refine';
import { RetrievalSession, sweepAbandonedSessions, type StageProgressEntry } from './session';
import type { SerializedContext } from './stage';
import { PRECISION_QUESTIONS } from './stages/precision';
import { SCOPE_QUESTION } from './stages/scope';
import { SIMILARITY_QUESTION } from './stages/similarity';
import { analyzeTask, type TaskRecord } from './taskAnalysis';

// The pipeline end to end over real HTTP to the loopback server, on the real indexed git fixture:
// sessions, cancellation, order-independence, refinement re-entry.

const h = useRetrievalHarness('qwen3:0.6b');
let raw: Db;
let llm: LlmClient;
let sessionsDir: string;
const TASK = 'Fix `tokenize` in calc/tokenizer.py: it drops newline characters';

beforeEach(() => {
  raw = openRawDatabase(':memory:');
  llm = loopbackClient(h.server, raw);
  sessionsDir = mkdtempSync(join(tmpdir(), 'cra-sessions-'));
  scriptJudge();
});
afterEach(() => {
  raw.close();
  rmSync(sessionsDir, { recursive: true, force: true });
});

/** The judge: by the question in the system prompt and the item. Scope: yes to the parser; similarity: yes to tokenizer|parser; pass 1 yes; pass 2 yes to tokenize; pass 3 no. */
function scriptJudge(extra: (system: string, prompt: string) => ScriptedReply | undefined = () => undefined) {
  h.server.script.respond = (prompt) => {
    const req = h.server.requests.findLast((r) => JSON.stringify(r.body).includes(JSON.stringify(prompt).slice(1, -1)));
    const system = (req?.body as { messages?: Array<{ content: string }> } | undefined)?.messages?.[0]?.content ?? '';
    const special = extra(system, prompt);
    if (special) return special;
    const yes = (v: boolean): ScriptedReply => ({ json: { answer: v ? 'yes' : 'no' } });
    if (system.includes(SCOPE_QUESTION)) return yes(/path: calc\/parser\.py/.test(prompt));
    if (system.includes(SIMILARITY_QUESTION)) return yes(/File A:\npath: calc\/tokenizer\.py[\s\S]*File B:\npath: calc\/parser\.py/.test(prompt));
    if (system.includes(PRECISION_QUESTIONS.precision_pass1)) return yes(true);
    if (system.includes(PRECISION_QUESTIONS.precision_pass2)) return yes(/symbol: tokenize /.test(prompt));
    if (system.includes(PRECISION_QUESTIONS.precision_pass3)) return yes(false);
    return { text: 'unexpected' };
  };
}

const task = (text = TASK, id = 'task-1'): Promise<TaskRecord> => analyzeTask(text, h.fx.kb, { id });
function deps(over: Partial<RetrievalDeps> = {}): RetrievalDeps {
  return { kb: h.fx.kb, llm, decisions: new RawDecisionLog(raw), runId: 'run-1', sessionsDir, readSource: (p) => readFileSync(join(h.fx.repo.root, p), 'utf8'), ...over };
}
const STAGES: StageName[] = ['scope', 'similarity', 'precision'];
const scope0 = { scope: { searchSeeds: 0 } };

/** The state a session file holds (opened as a plain SQLite file). */
function stateOf(file: string): Record<string, unknown> {
  const db = openDatabase(file, { readOnly: true });
  try {
    return Object.fromEntries((db.prepare('select key, value_json from retrieval_state').all() as Array<{ key: string; value_json: string }>).map((r) => [r.key, JSON.parse(r.value_json)]));
  } finally {
    db.close();
  }
}

describe('sessions', () => {
  it('the runner writes task, budget, stages, each stage output and progress (with the server\'s exact token counts) and the final context; close archives the file into raw and deletes it', async () => {
    const { package: pkg, session, result } = await retrieve({ task: await task(), stages: STAGES, budgetTokens: 8000, options: scope0 }, deps());
    expect(session.file).toBe(join(sessionsDir, 'task-1.sqlite'));
    expect(session.keys()).toEqual(['budget', 'final_context', 'owner', 'stage_outputs', 'stage_progress', 'stages', 'task']);
    expect(session.get('owner')).toMatchObject({ pid: process.pid, runId: 'run-1' });
    const progress = session.get<StageProgressEntry[]>('stage_progress')!;
    expect(progress.map((p) => [p.name, p.status, p.loop])).toEqual([['scope', 'done', 0], ['similarity', 'done', 0], ['precision', 'done', 0]]);
    // Exact counts as the server reported them: the sum over model_calls of each stage.
    const counted = raw.prepare("select stage, count(*) as calls, sum(prompt_tokens) as p, sum(completion_tokens) as c from model_calls group by stage").all() as Array<{ stage: string; calls: number; p: number; c: number }>;
    for (const row of counted) {
      const entry = progress.find((p) => p.usage?.[row.stage]);
      expect(entry?.usage?.[row.stage], row.stage).toEqual({ calls: row.calls, promptTokens: row.p, completionTokens: row.c, failed: 0 });
    }
    expect(result.stages.find((s) => s.name === 'precision')?.usage?.precision_pass2?.calls).toBeGreaterThan(0);
    const final = session.get<SerializedContext>('final_context')!;
    expect(new Set(final.files.map((f) => f.path))).toEqual(new Set(pkg.files.map((f) => f.path)));
    expect(pkg.dropped).toEqual([]);
    expect(final.groups).toEqual([['calc/tokenizer.py', 'calc/parser.py']]);
    expect(Object.keys(session.get<Record<string, unknown>>('stage_outputs')!)).toEqual(['scope', 'similarity', 'precision']);

    session.close({ raw, runId: 'run-1' });
    expect(existsSync(session.file)).toBe(false);
    const archived = raw.prepare('select run_id, bytes from session_archives').all() as Array<{ run_id: string; bytes: Buffer }>;
    expect(archived.map((a) => a.run_id)).toEqual(['run-1']);
    // The blob is the whole session database.
    const copy = join(sessionsDir, 'copy.sqlite');
    writeFileSync(copy, archived[0]!.bytes);
    expect((stateOf(copy).final_context as SerializedContext).files.length).toBe(final.files.length);
  });

  it('a cancelled run leaves no final context and no session file (archived without final_context); the next run of the task starts clean', async () => {
    const controller = new AbortController();
    // Cancel during precision pass 1: scope and similarity are done and in the session.
    scriptJudge((system) => (system.includes(PRECISION_QUESTIONS.precision_pass1) ? (controller.abort(), { fault: 'stall' }) : undefined));
    await expect(retrieve({ task: await task(), stages: STAGES, budgetTokens: 8000, options: scope0 }, deps({ signal: controller.signal }), raw)).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(readdirSync(sessionsDir)).toEqual([]);
    const blob = raw.prepare('select bytes from session_archives').pluck().get() as Buffer;
    const copy = join(sessionsDir, 'aborted.sqlite');
    writeFileSync(copy, blob);
    const state = stateOf(copy);
    rmSync(copy);
    expect(state.final_context).toBeUndefined();
    expect((state.stage_progress as StageProgressEntry[]).map((p) => [p.name, p.status])).toEqual([['scope', 'done'], ['similarity', 'done'], ['precision', 'failed']]);

    scriptJudge();
    const { session, package: pkg } = await retrieve({ task: await task(), stages: STAGES, budgetTokens: 8000, options: scope0 }, deps({ runId: 'run-2' }));
    expect(session.get<StageProgressEntry[]>('stage_progress')!.map((p) => p.status)).toEqual(['done', 'done', 'done']);
    expect(pkg.files.length).toBeGreaterThan(0);
    session.close();
  });

  it('a file a killed run left for the task is removed when the task starts again: nothing of it is read back', async () => {
    const killed = RetrievalSession.create(sessionsDir, 'task-1');
    killed.recordStage('scope', { stale: true }, { name: 'scope', status: 'done', loop: 0, files: 99, decisions: 0, ms: 0 });
    killed.set('final_context', { runId: 'dead', files: [], budget: { tokens: 1, used: 0 } });
    // No close: the process died here. The file is what it left.
    expect(existsSync(killed.file)).toBe(true);
    const { session } = await retrieve({ task: await task(), stages: ['scope'], budgetTokens: 8000, options: scope0 }, deps({ runId: 'run-3' }));
    expect(session.get<StageProgressEntry[]>('stage_progress')!.map((p) => [p.name, p.files])).toEqual([['scope', 2]]);
    expect(session.get<SerializedContext>('final_context')!.runId).toBe('run-3');
    session.close();
  });
});

describe('sweeping abandoned sessions', () => {
  it('archives and removes the files of dead processes and old unowned files; leaves live and fresh ones, and files that are not retrieval sessions', () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const mk = (id: string, owner?: Record<string, unknown>) => {
      const s = RetrievalSession.create(sessionsDir, id, 'run-x');
      if (owner) s.set('owner', owner);
      return s;
    };
    const live = mk('live');
    mk('dead', { pid: dead, runId: 'run-dead' });
    // Unowned: a file another process is creating (fresh) or one that never got its owner (old).
    for (const id of ['fresh', 'old']) {
      const db = openDatabase(join(sessionsDir, `${id}.sqlite`), { journal: 'rollback' });
      db.exec('create table retrieval_state (key text primary key, value_json text not null, updated_at text not null)');
      db.close();
    }
    // An old file of another kind (a cancelled solve run's session, kept for its resume) is not a retrieval session.
    const solve = openDatabase(join(sessionsDir, 'solve-run-1.sqlite'), { journal: 'rollback' });
    solve.exec('create table solve_state (key text primary key, value_json text not null)');
    solve.close();
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(sessionsDir, 'old.sqlite'), past, past);
    utimesSync(join(sessionsDir, 'solve-run-1.sqlite'), past, past);
    expect(sweepAbandonedSessions(sessionsDir, raw).sort()).toEqual(['dead', 'old']);
    expect(readdirSync(sessionsDir).sort()).toEqual(['fresh.sqlite', 'live.sqlite', 'solve-run-1.sqlite']);
    expect(raw.prepare('select run_id from session_archives order by run_id').pluck().all()).toEqual(['abandoned:old', 'run-dead']);
    live.close();
  });
});

describe('bounded concurrency', () => {
  it('gives the same package and decisions at concurrency 1 and 4 whatever order the answers arrive in', async () => {
    const delays = [40, 0, 25, 5, 30, 10, 15, 20];
    let n = 0;
    const run = async (concurrency: number, runId: string) => {
      scriptJudge(() => undefined);
      const base = h.server.script.respond!;
      h.server.script.respond = (prompt) => ({ ...base(prompt), delayMs: delays[n++ % delays.length] });
      const r = await retrieve({ task: await task(), stages: STAGES, budgetTokens: 8000, options: scope0 }, deps({ runId, concurrency }));
      r.session.close();
      const rows = raw.prepare('select stage, subject, decision from retrieval_decisions where run_id = ? order by stage, subject').all(runId);
      return { pkg: r.package, rows };
    };
    const one = await run(1, 'c1');
    const four = await run(4, 'c4');
    expect(renderMarkdown(four.pkg)).toBe(renderMarkdown(one.pkg));
    expect(four.pkg).toEqual(one.pkg);
    expect(four.rows).toEqual(one.rows);
    expect(one.rows.length).toBeGreaterThan(5);
  });
});

describe('refinement re-entry', () => {
  const request = (over: Partial<RefinementRequest> = {}): RefinementRequest => ({ reason: 'the test imports units', missingFiles: [], missingSymbols: [], missingTests: [], errorSignatures: [], ...over });

  it('refuses a request without concrete evidence', () => {
    expect(() => validateRefinementRequest(request({ missingFiles: ['  '] }))).toThrow(/needs concrete evidence/);
  });

  it('same task id: adds what the evidence names, keeps the previous package, stays within the budget, logs the request; bounded by max loops', async () => {
    const { session, package: first } = await retrieve({ task: await task(), stages: STAGES, budgetTokens: 2000, options: scope0 }, deps());
    expect(first.files.map((f) => f.path)).not.toContain('calc/units.py');
    const refineDeps = { ...deps({ runId: 'run-r' }), maxRefinementLoops: 1, options: scope0 };
    await expect(refineContext(session, request(), refineDeps)).rejects.toThrow(/concrete evidence/);
    const r = await refineContext(session, request({ missingSymbols: ['feet_to_meters'], missingFiles: ['no/such.py'], errorSignatures: ['Traceback (most recent call last):\n  File "calc/cli.py", line 5, in main\nValueError: bad'] }), refineDeps);
    expect(r.loop).toBe(1);
    expect(r.package.taskId).toBe('task-1');
    expect(r.package.budget.used).toBeLessThanOrEqual(2000);
    expect(estimateTokens(renderMarkdown(r.package), DEFAULT_SAFETY_MARGIN)).toBeLessThanOrEqual(2000);
    const paths = r.package.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['calc/units.py', 'calc/cli.py', ...first.files.map((f) => f.path)]));
    const units = r.package.files.find((f) => f.path === 'calc/units.py')!;
    expect(units.tier).toBe(0);
    expect(units.reasons[0]).toEqual({ kind: 'refinement', detail: { evidence: 'missing-symbol', text: 'feet_to_meters' } });
    // The named symbol skipped pass 1 and is in the package.
    expect(units.items.map((i) => i.symbol?.qualifiedName)).toContain('feet_to_meters');
    expect(r.unresolved).toEqual(['file no/such.py']);
    expect(session.get('refinement_request')).toMatchObject({ missingSymbols: ['feet_to_meters'] });
    expect(session.get<StageProgressEntry[]>('stage_progress')!.map((p) => `${p.name}:${p.loop}`)).toEqual(['scope:0', 'similarity:0', 'precision:0', 'scope:1', 'similarity:1', 'precision:1']);
    expect(session.get<SerializedContext>('final_context')!.runId).toBe('run-r');
    expect(raw.prepare("select subject, decision from retrieval_decisions where stage = 'refinement' order by id").all()).toEqual([
      { subject: 'calc/units.py', decision: 'requested' },
      { subject: 'calc/cli.py', decision: 'requested' },
      { subject: 'file no/such.py', decision: 'unresolved' },
    ]);
    await expect(refineContext(session, request({ missingFiles: ['calc/units.py'] }), refineDeps)).rejects.toThrow(/refined 1 time: the limit \(\[retrieval\] max_refinement_loops\) is 1/);
    session.close();
  });

  it('a plan file whose symbols are all judged out stays whole, and keeps its plan-file reason through a refinement', async () => {
    scriptJudge((system, prompt) => (system.includes(PRECISION_QUESTIONS.precision_pass1) && prompt.includes('file: calc/units.py') ? { json: { answer: 'no' } } : undefined));
    const t = { ...(await task()), givenFiles: [{ path: 'calc/units.py', reason: { kind: 'plan-file' as const, detail: {} } }] };
    const { session, package: first } = await retrieve({ task: t, stages: ['scope', 'precision'], budgetTokens: 4000, options: scope0 }, deps());
    const whole = (pkg: typeof first) => pkg.files.find((f) => f.path === 'calc/units.py');
    expect(whole(first)).toMatchObject({ tier: 0, reasons: [{ kind: 'plan-file', detail: {} }], items: [{ detail: 'file', startLine: 1 }] });
    expect(raw.prepare("select decision from retrieval_decisions where stage = 'precision' and subject = 'calc/units.py'").pluck().all()).toEqual(['whole-file']);
    const r = await refineContext(session, request({ missingFiles: ['calc/cli.py'] }), { ...deps({ runId: 'run-r2' }), maxRefinementLoops: 1, options: scope0 });
    expect(whole(r.package)).toMatchObject({ tier: 0, reasons: [{ kind: 'plan-file', detail: {} }], items: [{ detail: 'file' }] });
    session.close();
  });

  it('refuses a session without a finished retrieval', async () => {
    const s = RetrievalSession.create(sessionsDir, 'fresh');
    await expect(refineContext(s, request({ missingFiles: ['calc/units.py'] }), { ...deps(), maxRefinementLoops: 3 })).rejects.toThrow(/no finished retrieval/);
    s.close();
  });
});

describe('stage lists', () => {
  // Checked once, by the contract's schema (retrieval/run's `stages`); the pipeline takes the list as given.
  it('must be explicit, known, unrepeated, include scope, with routing first and refilter last', () => {
    const problem = (list: unknown) => retrievalStageListSchema.safeParse(list).error?.issues[0]?.message;
    expect(retrievalStageListSchema.parse(['routing', 'scope', 'precision', 'refilter'])).toEqual(['routing', 'scope', 'precision', 'refilter']);
    expect(problem([])).toMatch(/stage list is empty/);
    expect(problem(['scope', 'precison'])).toBe('"precison" is not a retrieval stage; use one of routing, scope, similarity, precision, refilter');
    expect(problem(['scope', 'scope'])).toMatch(/listed twice/);
    expect(problem(['precision'])).toMatch(/must include scope/);
    expect(problem(['scope', 'routing'])).toMatch(/routing must come first/);
    expect(problem(['refilter', 'scope'])).toMatch(/refilter must come last/);
  });
});
