import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseToml, validateConfig } from '../../platform/config/load';
import type { Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import { LlmClient } from '../../platform/llm/client';
import { ModelRouter } from '../../platform/llm/router';
import { RawCallLog } from '../../platform/logs/callLog';
import { RawRunJournal } from '../../platform/logs/runLog';
import { RawDecisionLog } from '../../features/retrieval/decisionLog';
import { runPipeline } from '../../features/retrieval/stage';
import { ScopeStage } from '../../features/retrieval/stages/scope';
import { analyzeTask } from '../../features/retrieval/taskAnalysis';
import { createRetrievalFixture, type RetrievalFixture } from '../../testing/retrievalFixture';
import { EventBus } from '../../platform/runtime/events';
import { RunRegistry } from '../../platform/runtime/runs';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { LogAnalysis, outcomeOf } from './logAnalysis';

/*
 * The log is filled through the product's writers: a real RunRegistry recording to RawRunJournal
 * (task_runs), a real LlmClient logging to RawCallLog (model_calls) against the loopback model
 * server, and the real scope stage through runPipeline writing RawDecisionLog (retrieval_decisions).
 * Run A succeeds; run B's judge answers one item with prose (a default-deny) and the run then fails.
 */
let fx: RetrievalFixture;
let server: OllamaTestServer;
let dir: string;
let raw: Db;
let runA: string;
let runB: string;
const TASK = 'Fix `tokenize` in calc/tokenizer.py: it drops newline characters';

beforeAll(async () => {
  [fx, server] = await Promise.all([createRetrievalFixture(), OllamaTestServer.start()]);
  server.install('qwen3:0.6b');
  dir = mkdtempSync(join(tmpdir(), 'cra-loganalysis-'));
  raw = openRawDatabase(join(dir, 'raw.sqlite'));
  const toml = `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`;
  const router = new ModelRouter({ values: validateConfig(parseToml(toml, 't'), 't'), files: ['t'], primaryFile: 't' });
  const log = new RawCallLog(raw);
  const llm = new LlmClient({ router: () => router, log, retry: { attempts: 1 } });
  const runs = new RunRegistry(new EventBus());
  runs.recordTo(new RawRunJournal(dir, () => raw));
  const task = await analyzeTask(TASK, fx.kb, { id: 't1' });
  const retrieve = (runId: string) => runPipeline({ stages: [new ScopeStage({ searchSeeds: 0 })], kb: fx.kb, task, llm, runId, budgetTokens: 10_000, decisions: new RawDecisionLog(raw), log });

  // Run A: yes to the parser, no to the rest.
  server.script.respond = (prompt) => ({ json: { answer: /path: calc\/parser\.py/.test(prompt) ? 'yes' : 'no' } });
  const a = runs.start('eval', 'run A', async ({ runId }) => {
    await retrieve(runId);
    return { reportId: 'r', file: 'f' };
  }, { repoPath: fx.repo.root });
  runA = a.runId;
  await a.done;

  // Run B: prose for the changelog (neither yes nor no), yes to the rest; then the run fails.
  server.script.respond = (prompt) => (/CHANGELOG/.test(prompt) ? { text: 'It depends on the release notes.' } : { json: { answer: 'yes' } });
  const b = runs.start('eval', 'run B', async ({ runId }) => {
    await retrieve(runId);
    throw new Error('validation failed: 2 tests fail');
  }, { repoPath: fx.repo.root });
  runB = b.runId;
  await b.done.catch(() => undefined);

  // A call outside any run that fails (server error), for the error rate of its stage.
  server.script.respond = undefined;
  server.script.chat = [{ fault: 'http500' }];
  await llm.complete('hello', { stage: 'chat' }).catch(() => undefined);
}, 60_000);

afterAll(async () => {
  raw?.close();
  fx?.cleanup();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('LogAnalysis over a raw DB written by the product', () => {
  it('reads calls by stage, model, run and time range', () => {
    const logs = new LogAnalysis(raw);
    expect(logs.isEmpty()).toBe(false);
    const scope = logs.calls({ stage: 'scope' });
    expect(scope).toHaveLength(6);
    expect(scope.every((c) => c.model === 'qwen3:0.6b' && c.prompt.includes('Task:') && c.system?.includes('yes or no'))).toBe(true);
    expect(logs.calls({ runId: runA }).map((c) => c.runId)).toEqual([runA, runA, runA]);
    expect(logs.calls({ model: 'no-such-model' })).toEqual([]);
    const failed = logs.calls({ failed: true });
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ stage: 'chat', runId: null });
    expect(failed[0]?.errorCode).toBeTruthy();
    const all = logs.calls();
    const middle = all[3]!.createdAt;
    const since = logs.calls({ since: middle });
    const until = logs.calls({ until: middle });
    expect(since.length).toBeGreaterThan(0);
    expect(until.length).toBeGreaterThan(0);
    expect(since.length + until.length).toBe(all.length);
    expect(since.every((c) => c.createdAt >= middle)).toBe(true);
    expect(until.every((c) => c.createdAt < middle)).toBe(true);
    expect(logs.calls({ since: '2999-01-01T00:00:00Z' })).toEqual([]);
  });

  it('gives each decision its reasons, its verdict and the call (prompt and reply) behind it', () => {
    const a = new LogAnalysis(raw).decisions({ runId: runA });
    expect(a.map((d) => [d.subject, d.decision, d.verdict])).toEqual([
      ['calc/tokenizer.py', 'included', null],
      ['calc/parser.py', 'included', 'yes'],
      ['tests/test_tokenizer.py', 'excluded', 'no'],
      ['docs/CHANGELOG.md', 'excluded', 'no'],
    ]);
    const parser = a.find((d) => d.subject === 'calc/parser.py')!;
    expect(parser.call?.prompt).toContain('path: calc/parser.py');
    expect(parser.call?.response).toContain('yes');
    expect(parser.reasons.map((r) => r.kind)).toEqual(['imports', 'judged-relevant']);
    const seed = a.find((d) => d.subject === 'calc/tokenizer.py')!;
    expect(seed.call).toBeNull();
    const changelogB = new LogAnalysis(raw).decisions({ runId: runB, stage: 'scope' }).find((d) => d.subject === 'docs/CHANGELOG.md')!;
    expect(changelogB).toMatchObject({ decision: 'excluded', verdict: 'no', defaultDeny: true });
    expect(changelogB.call?.response).toBe('It depends on the release notes.');
  });

  it('lists task runs with their outcomes, and joins every decision to its run outcome', () => {
    const logs = new LogAnalysis(raw);
    const runs = logs.runs({ mode: 'eval' });
    expect(runs.map((r) => [r.runId, r.status, r.success])).toEqual([
      [runA, 'done', true],
      [runB, 'failed', false],
    ]);
    expect(runs[0]?.result).toEqual({ reportId: 'r', file: 'f' });
    expect(runs[1]?.error?.message).toMatch(/validation failed/);
    const joined = logs.decisionOutcomes({ stage: 'scope' });
    expect(joined).toHaveLength(8);
    for (const j of joined) expect(j.outcome?.success).toBe(j.decision.runId === runA);
  });

  it('computes per-stage volume, default-deny rate, yes rate, latency and error rate', () => {
    const stats = new LogAnalysis(raw).stageStats();
    const scope = stats.find((s) => s.stage === 'scope')!;
    // 6 judged (3 per run): run A 1 yes; run B 2 yes and 1 default-deny.
    expect(scope).toMatchObject({ calls: 6, errorRate: 0, decisions: 8, judged: 6 });
    expect(scope.yesRate).toBeCloseTo(3 / 6, 9);
    expect(scope.defaultDenyRate).toBeCloseTo(1 / 6, 9);
    expect(scope.meanLatencyMs).not.toBeNull();
    const chat = stats.find((s) => s.stage === 'chat')!;
    expect(chat).toMatchObject({ calls: 1, errorRate: 1, decisions: 0, judged: 0, yesRate: 0, defaultDenyRate: 0 });
  });

  it('reads outcomes generically from whatever status a kind of run records', () => {
    expect(['done', 'complete', 'partial', 'failed', 'cancelled', 'running'].map((s) => outcomeOf(s, s === 'done' || s === 'complete'))).toEqual(['success', 'success', 'partial', 'failed', 'cancelled', 'running']);
    // A status this build does not know is read by success.
    expect([outcomeOf('validated', true), outcomeOf('rejected', false)]).toEqual(['success', 'failed']);
    const logs = new LogAnalysis(raw);
    expect(logs.runs({ mode: 'eval' }).map((r) => r.outcome)).toEqual(['success', 'failed']);
    const outcomes = logs.decisionOutcomes({ stage: 'scope' });
    expect(outcomes.length).toBeGreaterThan(0);
    expect(new Set(outcomes.map((j) => j.outcome?.outcome))).toEqual(new Set(['success', 'failed']));
    expect(outcomes.every((j) => j.outcome?.outcome === (j.decision.runId === runA ? 'success' : 'failed'))).toBe(true);
  });

  it('counts calls, judgments and default-denies per stage per time bucket, and latencies per model', () => {
    const logs = new LogAnalysis(raw);
    const hours = logs.stageSeries('hour');
    const scope = hours.filter((b) => b.stage === 'scope');
    expect(scope.reduce((n, b) => n + b.calls, 0)).toBe(6);
    expect(scope.reduce((n, b) => n + b.judged, 0)).toBe(6);
    expect(scope.reduce((n, b) => n + b.defaultDenied, 0)).toBe(1);
    expect(scope.length).toBeGreaterThan(0);
    expect(scope.every((b) => /^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/.test(b.bucket))).toBe(true);
    const days = logs.stageSeries('day');
    expect(days.length).toBeGreaterThan(0);
    expect(days.every((b) => b.bucket.endsWith('T00:00:00.000Z'))).toBe(true);
    // Answered calls only: the failed chat call has no latency worth charting.
    const ms = logs.latencies().get('qwen3:0.6b')!;
    expect(ms).toHaveLength(6);
    expect([...ms].sort((a, b) => a - b)).toEqual(ms);
    expect(logs.runCounts()).toEqual([
      { mode: 'eval', status: 'done', count: 1 },
      { mode: 'eval', status: 'failed', count: 1 },
    ]);
    expect(logs.volume()).toEqual({ calls: 7, decisions: 8, runs: 2 });
    expect(logs.span()?.first).toBe(logs.calls()[0]?.createdAt);
  });

  it('says an empty log is empty', () => {
    const empty = openRawDatabase(':memory:');
    try {
      expect(new LogAnalysis(empty).isEmpty()).toBe(true);
      expect(new LogAnalysis(empty).stageStats()).toEqual([]);
    } finally {
      empty.close();
    }
  });
});
