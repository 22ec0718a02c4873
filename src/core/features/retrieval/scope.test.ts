import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import type { LlmClient } from '../../platform/llm/client';
import { RawDecisionLog } from './decisionLog';
import { runPipeline, type RetrievalStage } from './stage';
import { scopeCandidates, ScopeStage } from './stages/scope';
import { analyzeTask, type TaskRecord } from './taskAnalysis';
import { loopbackClient, useRetrievalHarness } from '../../testing/retrievalHarness';

let raw: Db;
let llm: LlmClient;
const TASK = 'Fix `tokenize` in calc/tokenizer.py: it drops newline characters';

const h = useRetrievalHarness('qwen3:0.6b');
beforeEach(() => {
  raw = openRawDatabase(':memory:');
  llm = loopbackClient(h.server, raw);
  // The judge says yes to the parser only, with a confidence from log-probabilities.
  h.server.script.respond = (prompt) => {
    const yes = /path: calc\/parser\.py/.test(prompt);
    const at = (token: string) => ({ token, logprob: -0.001 });
    return { json: { answer: yes ? 'yes' : 'no' }, logprobs: [at('{"'), at('answer'), at('":"'), { token: yes ? 'yes' : 'no', logprob: -0.1, top: [{ token: 'yes', logprob: yes ? -0.1 : -2.5 }, { token: 'no', logprob: yes ? -2.5 : -0.1 }] }, at('"}')] };
  };
});

const task = (text = TASK): Promise<TaskRecord> => analyzeTask(text, h.fx.kb, { id: 'task-1' });

describe('scope candidates', () => {
  it('tier 1 named files and symbols, then search hits; tier 2 imports both ways; tier 3 co-change above the minimum', async () => {
    const c = await scopeCandidates(h.fx.kb, await task(), { searchSeeds: 0 });
    expect(c.map((x) => [x.tier, x.path, x.relation])).toEqual([
      [1, 'calc/tokenizer.py', { kind: 'named-in-task', detail: { text: 'calc/tokenizer.py' } }],
      [2, 'calc/parser.py', { kind: 'imports', detail: { path: 'calc/tokenizer.py' } }],
      [2, 'tests/test_tokenizer.py', { kind: 'imports', detail: { path: 'calc/tokenizer.py' } }],
      [3, 'docs/CHANGELOG.md', { kind: 'co-change', detail: { path: 'calc/tokenizer.py', commits: 4 } }],
    ]);
    // cli.py and units.py changed together once: below the minimum of 2, and not linked to the seed anyway.
    expect((await scopeCandidates(h.fx.kb, await task(), { searchSeeds: 0, minCoChange: 5 })).map((x) => x.path)).not.toContain('docs/CHANGELOG.md');
  });

  it('orders a tier by the search rank first: a neighbour the search ranks below the seeds comes before the rest', async () => {
    // Without the search's ranking, parser.py comes first in tier 2 (both link to one seed; then by path).
    const c = await scopeCandidates(h.fx.kb, await task('Fix `tokenize` in calc/tokenizer.py: the test asserts the wrong token list'), { searchSeeds: 0 });
    expect(c.filter((x) => x.tier === 2).map((x) => x.path)).toEqual(['tests/test_tokenizer.py', 'calc/parser.py']);
  });

  it('takes the top hits of the model-free search as seeds for a task that names nothing', async () => {
    const c = await scopeCandidates(h.fx.kb, await task('convert feet to meters'), { searchSeeds: 1 });
    expect(c[0]).toMatchObject({ tier: 1, path: 'calc/units.py', relation: { kind: 'seed', detail: { rank: 1 } } });
  });
});

describe('scope stage through the runner', () => {
  it('keeps seeds without judgment, judges every other candidate once, and logs every decision to raw', async () => {
    const result = await runPipeline({ stages: [new ScopeStage({ searchSeeds: 0 })], kb: h.fx.kb, task: await task(), llm, runId: 'run-1', budgetTokens: 28_672, decisions: new RawDecisionLog(raw), concurrency: 2 });
    expect(result.context.files.map((f) => [f.tier, f.path])).toEqual([
      [1, 'calc/tokenizer.py'],
      [2, 'calc/parser.py'],
    ]);
    expect(result.context.files[1]?.pYes).toBeCloseTo(Math.exp(-0.1) / (Math.exp(-0.1) + Math.exp(-2.5)), 6);
    const calls = raw.prepare('select id, stage, prompt from model_calls order by id').all() as Array<{ id: number; stage: string; prompt: string }>;
    expect(calls).toHaveLength(3);
    expect(calls.every((c) => c.stage === 'scope' && !c.prompt.includes('path: calc/tokenizer.py'))).toBe(true);
    const rows = raw.prepare('select run_id, stage, subject, tier, decision, reason, model_call_id from retrieval_decisions order by subject').all() as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.subject, r.tier, r.decision, r.model_call_id === null ? null : 'call'])).toEqual([
      ['calc/parser.py', '2', 'included', 'call'],
      ['calc/tokenizer.py', '1', 'included', null],
      ['docs/CHANGELOG.md', '3', 'excluded', 'call'],
      ['tests/test_tokenizer.py', '2', 'excluded', 'call'],
    ]);
    expect(rows.every((r) => r.run_id === 'run-1' && r.stage === 'scope')).toBe(true);
    expect(new Set(rows.flatMap((r) => (r.model_call_id === null ? [] : [r.model_call_id])))).toEqual(new Set(calls.map((c) => c.id)));
    const parser = JSON.parse(String(rows[0]?.reason)) as { reasons: Array<{ kind: string }>; judgment: { read: string } };
    expect(parser.reasons.map((r) => r.kind)).toEqual(['imports', 'judged-relevant']);
    expect(parser.judgment.read).toBe('json');
    expect(result.stages).toEqual([expect.objectContaining({ name: 'scope', files: 2, decisions: 4 })]);
  });

  it('caps the candidates (seeds always in) and records those over the cap', async () => {
    const result = await runPipeline({ stages: [new ScopeStage({ searchSeeds: 0, maxCandidates: 2 })], kb: h.fx.kb, task: await task(), llm, runId: 'run-2', budgetTokens: 1000, decisions: new RawDecisionLog(raw) });
    expect(result.context.files.map((f) => f.path)).toEqual(['calc/tokenizer.py', 'calc/parser.py']);
    expect(raw.prepare("select subject from retrieval_decisions where decision = 'over-cap' order by subject").pluck().all()).toEqual(['docs/CHANGELOG.md', 'tests/test_tokenizer.py']);
    expect(raw.prepare('select count(*) from model_calls').pluck().get()).toBe(1);
  });

  it('refuses an empty or repeated stage list and a budget of zero, and stops a stage that overruns the budget', async () => {
    const base = { kb: h.fx.kb, task: await task(), llm, runId: 'run-3', budgetTokens: 100, decisions: new RawDecisionLog(raw) };
    await expect(runPipeline({ ...base, stages: [] })).rejects.toThrow(/No retrieval stages given/);
    await expect(runPipeline({ ...base, stages: [new ScopeStage(), new ScopeStage()] })).rejects.toThrow(/listed twice/);
    await expect(runPipeline({ ...base, stages: [new ScopeStage()], budgetTokens: 0 })).rejects.toThrow(/above 0/);
    const greedy: RetrievalStage = { name: 'greedy', run: async (ctx) => ({ ...ctx, budget: { ...ctx.budget, used: ctx.budget.tokens + 1 } }) };
    await expect(runPipeline({ ...base, stages: [greedy] })).rejects.toThrow(/greedy left 101 tokens in a 100-token budget/);
  });
});
