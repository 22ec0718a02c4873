import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { parseToml, validateConfig } from '../../platform/config/load';
import type { Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import { LlmClient } from '../../platform/llm/client';
import { ModelRouter } from '../../platform/llm/router';
import { RawCallLog } from '../../platform/logs/callLog';
import { RawRunJournal } from '../../platform/logs/runLog';
import { RawDecisionLog } from '../../features/retrieval/decisionLog';
import { runPipeline } from '../../features/retrieval/stage';
import { PrecisionStage } from '../../features/retrieval/stages/precision';
import { ScopeStage } from '../../features/retrieval/stages/scope';
import { analyzeTask } from '../../features/retrieval/taskAnalysis';
import { createRetrievalFixture, type RetrievalFixture } from '../../testing/retrievalFixture';
import { EventBus } from '../../platform/runtime/events';
import { RunRegistry } from '../../platform/runtime/runs';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { bootstrapDataset } from './bootstrap';
import { curateData } from './curate';
import type { CuratedManifest } from './curatedManifest';
import { chatLineSchema } from './dataset';
import { listDatasets } from './datasets';
import { LogAnalysis } from './logAnalysis';
import { LogSources } from './logSources';
import { trainingPreflight } from './preflight';
import { buildShopRepo } from '../../testing/bootstrapFixture';
import { loadTrainingPlan, saveTrainingPlan, TRAINING_PLAN_JSON_SCHEMA, writeTrainingPlan, type TrainingPlan } from './trainPlan';
import { trainingStatistics } from './trainStats';

/*
 * A data folder as the product leaves it: the user-level raw DB written by a real RunRegistry
 * (task_runs), LlmClient (model_calls, against the loopback server) and the scope stage
 * (retrieval_decisions) — run A succeeds, run B default-denies one file and fails — plus a
 * bootstrap dataset of the shop fixture under datasets/. Orchestrator passes have no writer yet
 * (the solve orchestrator is being built), so the two pass rows for the preference pairs are
 * inserted as its schema says.
 */
let fx: RetrievalFixture;
let server: OllamaTestServer;
let dataDir: string;
let raw: Db;
let llm: LlmClient;
const TASK = 'Fix `tokenize` in calc/tokenizer.py: it drops newline characters';

const PLAN: TrainingPlan = {
  stage: 'scope',
  rationale: 'scope has the highest default-deny rate (1 in 6) and the most examples.',
  data: { sources: ['logged', 'synthetic'], exclude_default_denied: true, exclude_failed_runs: true, balance_labels: true, max_examples: 1000, test_fraction: 0.25, extra_stages: ['precision_pass1', 'execute'] },
  hyperparameters: { method: 'lora', epochs: 3, learning_rate: 0.0002, batch_size: 8, lora_rank: 16 },
  target: { metric: 'default_deny_rate', current: 0.167, goal: 0.02 },
};

beforeAll(async () => {
  [fx, server] = await Promise.all([createRetrievalFixture(), OllamaTestServer.start()]);
  server.install('qwen3:0.6b');
  dataDir = mkdtempSync(join(tmpdir(), 'cra-training-'));
  raw = openRawDatabase(join(dataDir, 'raw.sqlite'));
  const toml = `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`;
  const router = new ModelRouter({ values: validateConfig(parseToml(toml, 't'), 't'), files: ['t'], primaryFile: 't' });
  const log = new RawCallLog(raw);
  llm = new LlmClient({ router: () => router, log, retry: { attempts: 1 } });
  const runs = new RunRegistry(new EventBus());
  runs.recordTo(new RawRunJournal(dataDir, () => raw));
  const task = await analyzeTask(TASK, fx.kb, { id: 't1' });
  const retrieve = (runId: string) => runPipeline({ stages: [new ScopeStage({ searchSeeds: 0 })], kb: fx.kb, task, llm, runId, budgetTokens: 10_000, decisions: new RawDecisionLog(raw), log });
  server.script.respond = (prompt) => ({ json: { answer: /path: calc\/parser\.py/.test(prompt) ? 'yes' : 'no' } });
  const a = runs.start('eval', 'run A', async ({ runId }) => {
    await retrieve(runId);
    return { reportId: 'r', file: 'f' };
  }, { repoPath: fx.repo.root });
  await a.done;
  server.script.respond = (prompt) => (/CHANGELOG/.test(prompt) ? { text: 'It depends on the release notes.' } : { json: { answer: 'yes' } });
  const b = runs.start('eval', 'run B', async ({ runId }) => {
    await retrieve(runId);
    throw new Error('validation failed');
  }, { repoPath: fx.repo.root });
  await b.done.catch(() => undefined);
  server.script.respond = undefined;

  // A solve: part plan, then an adjustment after a step that succeeded.
  const now = new Date().toISOString();
  const call = (runId: string, stage: string, response: string) => log.append({ runId, stage, provider: 'ollama', baseUrl: server.url, model: 'qwen3:0.6b', system: 'You plan.', prompt: `${stage} prompt`, response, params: {}, latencyMs: 5, createdAt: now });
  raw.prepare(`insert into task_runs (id, mode, status, success, started_at, finished_at) values ('pp-1', 'plan', 'done', 1, ?, ?), ('adj-1', 'plan', 'complete', 1, ?, ?)`).run(now, now, now, now);
  raw.prepare(`insert into orchestrator_runs (id, task, status, started_at) values ('or-1', 'Add caching', 'complete', ?)`).run(now);
  raw.prepare(`insert into orchestrator_passes (orchestrator_run_id, pass_type, sequence, task_run_id, created_at) values ('or-1', 'part_plan', 1, 'pp-1', ?), ('or-1', 'adjustment', 3, 'adj-1', ?)`).run(now, now);
  call('pp-1', 'part_plan', '{"steps":["a","b"]}');
  call('adj-1', 'adjustment', '{"steps":["a","c"]}');

  await bootstrapDataset({ repoPath: buildShopRepo(join(dataDir, 'shop')), dataDir });
}, 120_000);

afterAll(async () => {
  raw?.close();
  fx?.cleanup();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('training modes over a data folder', () => {
  it('refuses an empty data folder, saying what produces data', () => {
    const empty = mkdtempSync(join(tmpdir(), 'cra-training-empty-'));
    try {
      openRawDatabase(join(empty, 'raw.sqlite')).close();
      expect(() => trainingPreflight(empty)).toThrow(/No training data in .*run tasks first .*cra bootstrap <repo>/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('measures each stage: volume, default-deny rate, outcome correlation, synthetic examples, weakest first', () => {
    const { sources, datasets } = trainingPreflight(dataDir);
    try {
      const stats = trainingStatistics(sources, datasets);
      const scope = stats.stages.find((s) => s.stage === 'scope')!;
      // 6 judged (3 per run), one default-deny in the failed run B.
      expect(scope).toMatchObject({ calls: 6, judged: 6, defaultDenyRate: 0.167, failedShare: 0.5, defaultDenyInFailed: 0.333, defaultDenyInSuccess: 0 });
      expect(scope.outcomes).toMatchObject({ success: 3, failed: 3 });
      // The bootstrap fixture's negatives are the scope stage's real candidates (search seeds and their neighbours).
      expect(scope.synthetic).toEqual({ examples: 17, yes: 5, no: 12 });
      expect(stats.stages.find((s) => s.stage === 'precision_pass1')?.synthetic.examples).toBe(12);
      expect(stats.weakest[0]?.stage).toBe('scope');
      expect(stats.log).toMatchObject({ rawDatabases: 1, calls: 8, decisions: 8 });
      expect(stats.datasets).toEqual([{ id: 'bootstrap-shop', kind: 'bootstrap', examples: 40 }]);
    } finally {
      sources.close();
    }
  });

  it('has the model write the plan with the schema as structured output, retrying once with the problems', async () => {
    const { sources, datasets } = trainingPreflight(dataDir);
    const stats = trainingStatistics(sources, datasets);
    sources.close();
    server.requests.length = 0;
    // First answer: a stage without examples (valid JSON, wrong plan); the retry gets it right.
    server.script.chat.push({ json: { ...PLAN, stage: 'routing' } }, { json: PLAN });
    const artifact = await writeTrainingPlan({ stats, llm });
    expect(artifact).toMatchObject({ attempts: 2, model: 'qwen3:0.6b', plan: PLAN });
    const bodies = server.requests.filter((r) => r.path === '/api/chat').map((r) => r.body as { format?: unknown; messages: Array<{ content: string }> });
    expect(bodies).toHaveLength(2);
    expect(bodies[0]?.format).toEqual(TRAINING_PLAN_JSON_SCHEMA);
    expect(bodies[1]?.messages.at(-1)?.content).toContain('stage "routing" has no examples; pick one of: scope');
    // Twice wrong: a clear error listing the problems.
    server.script.chat.push({ text: 'I would train scope.' }, { text: '{"stage": "scope"' });
    await expect(writeTrainingPlan({ stats, llm })).rejects.toThrow(/invalid twice; last problems:\n {2}- the JSON object is cut off/);
  });

  it('curates by the plan: filtered, de-duplicated, balanced, split by task, chat-format JSONL, DPO pairs, a manifest with hashes', async () => {
    const { sources, datasets } = trainingPreflight(dataDir);
    const stats = trainingStatistics(sources, datasets);
    server.script.chat.push({ json: PLAN });
    const artifact = await writeTrainingPlan({ stats, llm });
    const planFile = saveTrainingPlan(artifact, join(dataDir, 'plan.json'));
    const plan = { ...loadTrainingPlan(planFile), file: planFile };
    const out = join(dataDir, 'datasets', 'curated-test');
    try {
      const { dir, manifest } = curateData({ dataDir, plan, sources, datasets, out });
      expect(dir).toBe(out);
      const scope = manifest.stages.scope!;
      // Logged: run A's 3 judged decisions (run B failed: its 3 are left out, the default-deny among them counted as such).
      expect(scope.sources).toEqual({ logged: 3, synthetic: 17 });
      expect(scope.dropped).toMatchObject({ defaultDenied: 1, failedRun: 2, duplicate: 0 });
      // Balanced: 1 + 5 yes against 2 + 13 no → 6 of each.
      expect(scope.train.yes + scope.test.yes).toBe(6);
      expect(scope.train.no + scope.test.no).toBe(6);
      expect(scope.dropped.balance).toBe(8);
      expect(scope.tasks.test).toBeGreaterThan(0);
      expect(manifest.plan).toEqual({ file: planFile, id: artifact.id, sha256: createHash('sha256').update(readFileSync(planFile)).digest('hex'), stage: 'scope' });
      expect(Object.keys(manifest.stages)).toEqual(['scope', 'precision_pass1', 'execute']);
      for (const s of Object.values(manifest.stages)) {
        for (const f of [s.files.train, s.files.test]) {
          const text = readFileSync(join(dir, f.file), 'utf8');
          expect(createHash('sha256').update(text).digest('hex')).toBe(f.sha256);
          const lines = text.split('\n').filter(Boolean);
          expect(lines).toHaveLength(f.lines);
          for (const l of lines) expect(chatLineSchema.safeParse(JSON.parse(l)).success, l.slice(0, 200)).toBe(true);
        }
      }
      // The execute stage: free answers (diffs), not balanced, one per commit.
      expect(manifest.stages.execute!.train.examples + manifest.stages.execute!.test.examples).toBe(3);
      // The adjustment after a step that succeeded is preferred to the part plan it revised.
      expect(manifest.dpo?.pairs).toBe(1);
      const pair = JSON.parse(readFileSync(join(dir, 'dpo.jsonl'), 'utf8')) as { prompt: unknown[]; chosen: Array<{ content: string }>; rejected: Array<{ content: string }> };
      expect(pair.chosen[0]?.content).toBe('{"steps":["a","c"]}');
      expect(pair.rejected[0]?.content).toBe('{"steps":["a","b"]}');
      expect(JSON.parse(readFileSync(join(dir, 'curated.json'), 'utf8')) as CuratedManifest).toEqual(manifest);
      // The Data page lists it beside the bootstrap dataset.
      expect(listDatasets(dataDir).map((d) => [d.id, d.kind])).toEqual(expect.arrayContaining([['curated-test', 'curated'], ['bootstrap-shop', 'bootstrap']]));
      // Never over an existing folder, and nothing temporary left behind.
      expect(() => curateData({ dataDir, plan, sources, datasets, out })).toThrow(/already exists; give another --out folder/);
      expect(readdirSync(join(dataDir, 'datasets')).filter((f) => f.includes('.tmp-'))).toEqual([]);
    } finally {
      sources.close();
    }
  });

  it('leaves nothing behind when cancelled midway', () => {
    const { sources, datasets } = trainingPreflight(dataDir);
    const artifact = { version: 1 as const, id: 'tp-cancel', createdAt: '', model: 'm', attempts: 1, statistics: trainingStatistics(sources, datasets), plan: PLAN };
    const controller = new AbortController();
    const out = join(dataDir, 'datasets', 'curated-cancelled');
    try {
      expect(() => curateData({ dataDir, plan: { artifact, sha256: 'x', file: 'p' }, sources, datasets, out, signal: controller.signal, onProgress: (p) => p.done === 1 && controller.abort() })).toThrow();
      expect(existsSync(out)).toBe(false);
      expect(readdirSync(join(dataDir, 'datasets')).filter((f) => f.includes('curated-cancelled'))).toEqual([]);
    } finally {
      sources.close();
    }
  });

  it('measures scope → precision disagreement: files scope kept whose symbols precision all threw out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-training-disagree-'));
    const other = openRawDatabase(join(dir, 'raw.sqlite'));
    try {
      const toml = `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`;
      const router = new ModelRouter({ values: validateConfig(parseToml(toml, 't'), 't'), files: ['t'], primaryFile: 't' });
      const log = new RawCallLog(other);
      const client = new LlmClient({ router: () => router, log, retry: { attempts: 1 } });
      const task = await analyzeTask(TASK, fx.kb, { id: 't2' });
      // Scope keeps every candidate; precision finds no symbol of them relevant.
      server.script.respond = (prompt) => ({ json: { answer: prompt.includes('symbol:') ? 'no' : 'yes' } });
      await runPipeline({ stages: [new ScopeStage({ searchSeeds: 0 }), new PrecisionStage()], kb: fx.kb, task, llm: client, runId: 'r-disagree', budgetTokens: 10_000, decisions: new RawDecisionLog(other), log });
      server.script.respond = undefined;
      const sources = LogSources.open(dir);
      try {
        const stats = trainingStatistics(sources, []);
        const kept = new LogAnalysis(other).decisions({ stage: 'scope' }).filter((d) => d.verdict === 'yes').map((d) => d.subject);
        const thrown = new LogAnalysis(other).decisions({ stage: 'precision' }).filter((d) => d.subjectKind === 'file' && d.decision === 'excluded').map((d) => d.subject);
        expect(kept.length).toBeGreaterThan(0);
        const both = kept.filter((p) => thrown.includes(p)).length;
        expect(both).toBeGreaterThan(0);
        expect(stats.disagreement).toEqual([{ from: 'scope', to: 'precision', items: expect.any(Number), disagreed: both, rate: expect.any(Number) }]);
        expect(stats.disagreement[0]!.items).toBeGreaterThanOrEqual(both);
      } finally {
        sources.close();
      }
    } finally {
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the log of every raw DB of the data folder for the Data page', () => {
    const sources = LogSources.open(dataDir);
    try {
      const o = sources.overview();
      expect(o.sources).toBe(1);
      expect(o.bucketSize).toBe('hour');
      const scope = o.series.filter((b) => b.stage === 'scope');
      expect(scope.reduce((n, b) => n + b.calls, 0)).toBe(6);
      expect(scope.reduce((n, b) => n + b.defaultDenied, 0)).toBe(1);
      expect(o.latency.map((l) => l.model)).toEqual(['qwen3:0.6b']);
      expect(o.latency[0]!.p50Ms).toBeLessThanOrEqual(o.latency[0]!.p90Ms);
      expect(o.runs).toEqual(expect.arrayContaining([{ mode: 'eval', status: 'done', count: 1 }, { mode: 'eval', status: 'failed', count: 1 }]));
    } finally {
      sources.close();
    }
  });
});
