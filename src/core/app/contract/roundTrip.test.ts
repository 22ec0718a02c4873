/**
 * Every request key of the contract, called with its example input through the in-memory
 * transport against a prepared engine — an indexed repository, the loopback model server, a
 * finished solve run, a saved plan, a conversation, a bootstrap dataset — so that each example
 * reaches its handler and succeeds. Only the identities an example cannot know (ids, paths, model
 * names) are put in; every other field is the example's. The error paths are tested in
 * contract.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, requests, type BootstrapSummary, type EvalReport, type RequestKey, type RetrievalSummary, type RunAttachment, type RunStarted } from '../../../shared/contract';
import { createChatRepo } from '../../testing/chatRepo';
import type { TestRepo } from '../../testing/gitRepo';
import { isJudgment, OllamaTestServer } from '../../testing/ollamaTestServer';
import type { ScriptedReply } from '../../testing/testServerTypes';
import { createTempCore } from '../../testing/tempCore';
import { createInMemoryBridge } from './inMemoryTransport';

const MODEL = 'qwen3:0.6b';
const MAIL_PLAN = {
  task_summary: 'Say the mail port',
  affected_files: [{ path: 'mailer.py', role: 'modify', changes: [{ symbol: 'send_mail', action: 'modify', description: 'Say the port', depends_on: [], depended_by: [] }] }],
  execution_order: ['mailer.py'],
  rationale: 'Documentation only.',
};
const TRAINING_PLAN = {
  stage: 'scope',
  rationale: 'scope has the most examples.',
  data: { sources: ['logged', 'synthetic'], exclude_default_denied: true, exclude_failed_runs: true, balance_labels: true, max_examples: 1000, test_fraction: 0.25, extra_stages: [] },
  hyperparameters: { method: 'lora', epochs: 3, learning_rate: 0.0002, batch_size: 8, lora_rank: 16 },
  target: { metric: 'default_deny_rate', current: 0.1, goal: 0.02 },
};
const block = (path: string, search: string, replace: string) => `${path}\n\`\`\`python\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n\`\`\`\n`;

const temp = createTempCore();
const bridge = createInMemoryBridge(temp.core);
let server: OllamaTestServer;
let repo: TestRepo;
let spare: TestRepo;
let scratch: string;
/** Identities made along the way, put into the examples. */
const ids: Record<string, string> = {};

async function call<K extends RequestKey>(key: K, overrides: Record<string, unknown> = {}): Promise<unknown> {
  const input = { ...(requests[key].example as object), ...overrides };
  const envelope = await bridge.invoke(key, input as never);
  if (!envelope.ok) throw new Error(`${key} ${JSON.stringify(input)} answered ${envelope.error.code}: ${envelope.error.message}`);
  // The value survives a JSON round trip, as it must over IPC and WebSocket.
  expect(JSON.parse(JSON.stringify(envelope.value ?? null))).toEqual(envelope.value ?? null);
  return envelope.value;
}

/** Wait for a run a request started (it returns the run's record, and `runId` for one release); its outcome must be a success. */
async function finished(value: unknown): Promise<unknown> {
  const { run, runId } = value as RunStarted;
  expect(run).toMatchObject({ runId, status: 'running', startedAt: expect.any(String), subject: expect.any(Object) });
  return temp.core.runs.wait(run.runId);
}

/** Judgments (yes), task analysis and implement passes answered by their prompt; other calls take the queue. */
function respond(prompt: string): ScriptedReply | undefined {
  if (isJudgment(prompt)) return { json: { answer: 'yes' } };
  if (prompt.startsWith('Task:')) return { json: { intent: 'docs', files: ['mailer.py'], symbols: ['send_mail'], concepts: [] } };
  if (/^## Pass: implement/.test(prompt)) return { text: block('mailer.py', '    """Deliver a message over SMTP."""', '    """Deliver a message over SMTP (port 25)."""') };
  return undefined;
}

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install(MODEL);
  server.install('clean-room-example:none');
  server.offer('clean-room-example:none', [200_000]);
  writeFileSync(join(temp.dataDir, 'config.toml'), `[models]\nreasoning = "${MODEL}"\ncoding = "${MODEL}"\nbase_url = "${server.url}"\n`);
  server.script.respond = respond;
  repo = createChatRepo();
  spare = createChatRepo();
  scratch = mkdtempSync(join(tmpdir(), 'cra-roundtrip-'));
  const added = await temp.core.handlers['repos/add']({ path: repo.root });
  await temp.core.runs.wait(added.runId);
  ids.repoId = added.repo.id;
  ids.indexRun = added.runId;
}, 120_000);

afterAll(async () => {
  await temp.cleanup();
  await server.close();
  repo.cleanup();
  spare.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** The keys in the order they run (a later one may use what an earlier one made). */
const SCENARIO: Array<[RequestKey, () => Promise<void>]> = [];
const step = (key: RequestKey, body: () => Promise<void>) => SCENARIO.push([key, body]);
const repoId = () => ids.repoId!;

step('app/info', async () => expect(await call('app/info')).toMatchObject({ version: expect.any(String) }));
step('host/pickFolder', async () => expect(await call('host/pickFolder')).toMatchObject({ supported: false, path: null }));
step('config/get', async () => expect(await call('config/get')).toBeTruthy());
step('config/init', async () => {
  expect(await call('config/init')).toMatchObject({ created: false });
  // `cra init --config FILE [--force]`: another file, written once, then left unless forced.
  const file = join(scratch, 'repo-config.toml');
  expect(await call('config/init', { file })).toMatchObject({ created: true, file });
  expect(await call('config/init', { file })).toMatchObject({ created: false, file });
  expect(await call('config/init', { file, force: true })).toMatchObject({ created: true, file });
});
step('config/set', async () => expect(await call('config/set')).toBeTruthy());
step('models/status', async () => expect(await call('models/status')).toMatchObject({ reachable: true }));
step('models/startServer', async () => expect(await call('models/startServer')).toMatchObject({ reachable: true }));
step('models/list', async () => expect((await call('models/list')) as { models: unknown[] }).toMatchObject({ models: expect.arrayContaining([expect.objectContaining({ name: MODEL })]) }));
step('models/show', async () => expect(await call('models/show', { name: MODEL })).toBeTruthy());
step('models/ps', async () => expect(await call('models/ps')).toMatchObject({ models: expect.any(Array) }));
step('models/recommended', async () => expect(await call('models/recommended')).toMatchObject({ models: expect.any(Array) }));
step('models/assignments', async () => expect(await call('models/assignments')).toBeTruthy());
step('models/assign', async () => expect(await call('models/assign')).toBeTruthy());
step('models/assignStages', async () => expect(await call('models/assignStages')).toBeTruthy());
step('models/test', async () => expect(await call('models/test', { model: MODEL })).toBeTruthy());
step('models/pull', async () => {
  await finished(await call('models/pull'));
});
step('models/delete', async () => expect(await call('models/delete')).toEqual({ deleted: true }));
step('repos/list', async () => expect(((await call('repos/list')) as unknown[]).length).toBeGreaterThan(0));
step('repos/get', async () => expect(await call('repos/get', { repoId: repoId() })).toMatchObject({ status: 'ready' }));
step('repos/find', async () => {
  expect(await call('repos/find', { path: repo.root })).toBeTruthy();
  expect(await call('repos/find', { path: repo.root, indexed: true })).toMatchObject({ id: repoId() });
});
step('repos/resolve', async () => {
  // A folder inside the repository means the repository, as `cra … --repo PATH` does.
  const inside = mkdtempSync(join(repo.root, 'sub-'));
  expect(await call('repos/resolve', { path: inside })).toMatchObject({ id: repoId(), status: 'ready' });
  rmSync(inside, { recursive: true, force: true });
});
step('repos/probe', async () => {
  expect(await call('repos/probe', { path: repo.root })).toEqual({ path: repo.root, isGit: true, files: null, capped: false });
  const plain = mkdtempSync(join(tmpdir(), 'cra-probe-'));
  try {
    for (let i = 0; i < 5; i++) writeFileSync(join(plain, `f${i}.txt`), 'x');
    expect(await call('repos/probe', { path: plain, limit: 3 })).toMatchObject({ isGit: false, files: 3, capped: true });
    expect(await call('repos/probe', { path: plain })).toMatchObject({ isGit: false, files: 5, capped: false });
  } finally {
    rmSync(plain, { recursive: true, force: true });
  }
});
step('repos/file', async () => expect(await call('repos/file', { repoId: repoId(), path: 'mailer.py' })).toBeTruthy());
step('repos/readFile', async () => {
  // The indexed file as repos/file gives it; a path leading out of the repository is refused before anything is read.
  expect(await call('repos/readFile', { repoId: repoId(), path: 'mailer.py', maxContentBytes: 64 })).toMatchObject({ path: 'mailer.py', contentTruncated: true });
  for (const path of ['../outside.py', '/etc/hostname', '.git/config']) {
    const envelope = await bridge.invoke('repos/readFile', { repoId: repoId(), path, maxContentBytes: 64 });
    expect(envelope.ok ? null : envelope.error.code, path).toBe('VALIDATION');
  }
});
step('repos/fingerprint', async () => {
  const before = (await call('repos/fingerprint', { repoId: repoId() })) as { fingerprint: string; lastIndexedAt: string | null };
  expect(before).toMatchObject({ repoId: repoId(), fingerprint: expect.stringMatching(/^git:[0-9a-f]{40}$/), lastIndexedAt: expect.any(String) });
  expect(await call('repos/fingerprint', { repoId: repoId() })).toEqual(before);
  const added = join(repo.root, 'fingerprint-probe.txt');
  writeFileSync(added, 'new\n');
  try {
    expect(((await call('repos/fingerprint', { repoId: repoId() })) as { fingerprint: string }).fingerprint).not.toBe(before.fingerprint);
  } finally {
    rmSync(added, { force: true });
  }
});
step('repos/overview', async () => expect(await call('repos/overview', { repoId: repoId() })).toMatchObject({ files: expect.any(Number) }));
step('repos/skipped', async () => expect(await call('repos/skipped', { repoId: repoId() })).toBeTruthy());
step('repos/watch', async () => expect(await call('repos/watch', { repoId: repoId() })).toBeTruthy());
step('repos/reindex', async () => {
  await finished(await call('repos/reindex', { repoId: repoId() }));
});
step('search/query', async () => expect(await call('search/query', { repoId: repoId() })).toBeTruthy());
step('search/status', async () => expect(await call('search/status', { repoId: repoId() })).toBeTruthy());
step('search/embed', async () => {
  await finished(await call('search/embed', { repoId: repoId() }));
});
step('chat/pipelines', async () => expect(await call('chat/pipelines', { repoId: repoId() })).toBeTruthy());
step('chat/setDefaultPipeline', async () => expect(await call('chat/setDefaultPipeline', { repoId: repoId() })).toBeTruthy());
step('chat/ask', async () => {
  const started = (await call('chat/ask', { repoId: repoId() })) as { conversationId: string };
  ids.conversationId = started.conversationId;
  await finished(started);
});
step('chat/history', async () => expect(await call('chat/history', { repoId: repoId(), conversationId: ids.conversationId })).toBeTruthy());
step('chat/rename', async () => expect(await call('chat/rename', { repoId: repoId(), conversationId: ids.conversationId })).toBeTruthy());
step('chat/export', async () => expect(await call('chat/export', { repoId: repoId(), conversationId: ids.conversationId })).toBeTruthy());
step('chat/delete', async () => expect(await call('chat/delete', { repoId: repoId(), conversationId: ids.conversationId })).toBeTruthy());
step('retrieval/run', async () => {
  const { summary } = (await finished(await call('retrieval/run', { repoId: repoId() }))) as { summary: RetrievalSummary };
  expect(summary).toMatchObject({ budget: 14336, config: { contextWindow: 16384, reservedTokens: 2048 } });
  // The budget outright, a stage list and this run's safety margin (cra retrieve --budget-config).
  const { summary: outright } = (await finished(await call('retrieval/run', { repoId: repoId(), budget: { tokens: 6000 }, stages: ['scope'], safetyMargin: 0.2 }))) as { summary: RetrievalSummary };
  expect(outright).toMatchObject({ budget: 6000, config: { stages: ['scope'], safetyMargin: 0.2 } });
});
step('plans/validate', async () => expect(await call('plans/validate', { repoId: repoId() })).toBeTruthy());
step('plans/create', async () => {
  server.script.chat.push({ json: MAIL_PLAN });
  const started = (await call('plans/create', { repoId: repoId() })) as { runId: string };
  await finished(started);
});
step('plans/list', async () => {
  const listed = (await call('plans/list', { repoId: repoId() })) as { plans: Array<{ id: string }> };
  expect(listed.plans.length).toBeGreaterThan(0);
  ids.planId = listed.plans[0]!.id;
});
step('plans/get', async () => expect(await call('plans/get', { repoId: repoId(), planId: ids.planId })).toBeTruthy());
step('plans/save', async () => {
  // The example's plan, on a file of this repository.
  const plan = requests['plans/save'].example.plan as typeof MAIL_PLAN;
  const here = { ...plan, affected_files: [{ ...plan.affected_files[0]!, path: 'app.py' }], execution_order: ['app.py'] };
  expect(await call('plans/save', { repoId: repoId(), planId: ids.planId, plan: here })).toBeTruthy();
});
step('plans/solve', async () => {
  const started = (await call('plans/solve', { repoId: repoId(), plan: MAIL_PLAN, includeUncommitted: false })) as { solveRunId: string };
  ids.solveRunId = started.solveRunId;
  expect(await finished(started)).toMatchObject({ status: 'complete' });
});
step('plans/sandbox', async () => expect(await call('plans/sandbox', { repoId: repoId() })).toMatchObject({ commandsConfigured: false, wouldRefuse: false, message: expect.any(String) }));
step('plans/listRuns', async () => expect(((await call('plans/listRuns', { repoId: repoId() })) as { runs: unknown[] }).runs.length).toBeGreaterThan(0));
step('plans/getRun', async () => expect(await call('plans/getRun', { repoId: repoId(), solveRunId: ids.solveRunId })).toBeTruthy());
step('review/get', async () => {
  const view = (await call('review/get', { repoId: repoId(), runId: ids.solveRunId })) as { files: Array<{ hunks: Array<{ id: string }> }> };
  ids.hunk = view.files[0]!.hunks[0]!.id;
});
step('review/apply', async () => expect(await call('review/apply', { repoId: repoId(), runId: ids.solveRunId, accepted: [ids.hunk] })).toMatchObject({ hunks: 1 }));
step('review/undo', async () => expect(await call('review/undo', { repoId: repoId() })).toMatchObject({ runId: ids.solveRunId }));
step('plans/discardRun', async () => {
  // Only a cancelled or interrupted run can be discarded: one is cancelled while its model call waits.
  let implementing!: () => void;
  const inImplement = new Promise<void>((resolve) => (implementing = resolve));
  server.script.respond = (prompt) => {
    if (!/^## Pass: implement/.test(prompt)) return respond(prompt);
    implementing();
    return { chunks: ['mailer.py\n', 'never finished'], holdAfterFirst: new Promise(() => undefined) };
  };
  try {
    const started = await temp.core.handlers['plans/solve']({ repoId: repoId(), task: 'Say the mail port', plan: MAIL_PLAN as never, includeUncommitted: false });
    await inImplement;
    temp.core.runs.cancel(started.runId);
    await expect(temp.core.runs.wait(started.runId)).rejects.toMatchObject({ code: 'CANCELLED' });
    ids.cancelledRunId = started.solveRunId;
  } finally {
    server.script.respond = respond;
  }
  expect(await call('plans/discardRun', { repoId: repoId(), solveRunId: ids.cancelledRunId })).toBeTruthy();
});
step('summaries/status', async () => expect(await call('summaries/status', { repoId: repoId() })).toBeTruthy());
step('summaries/build', async () => {
  await finished(await call('summaries/build', { repoId: repoId() }));
});
step('enrich/run', async () => {
  await finished(await call('enrich/run', { repoId: repoId() }));
});
step('logs/list', async () => {
  const listed = (await call('logs/list')) as { calls: Array<{ id: number }> };
  expect(listed.calls.length).toBeGreaterThan(0);
});
step('logs/get', async () => expect(await call('logs/get')).toBeTruthy());
step('eval/start', async () => {
  await finished(await call('eval/start', { repoPath: repo.root }));
  // What `cra eval` asks for: a mode, cut-offs (taken sorted, without repeats), the pipeline with
  // a judge, a budget and stage settings, and the chat evidence.
  const full = { repoPath: repo.root, commits: 2, ks: [5, 1, 5], mode: 'keyword', chatEvidence: true, pipeline: { judge: 'oracle', budget: { contextWindow: 16384, reservedTokens: 2048 }, scope: { maxCandidates: 20 }, precision: { maxSymbols: 50 } } };
  const { reportId } = (await finished(await call('eval/start', full))) as { reportId: string };
  const report = (await call('eval/get', { id: reportId })) as EvalReport;
  expect(report.ks).toEqual([1, 5]);
  expect(report.pipeline).toMatchObject({ judge: 'oracle', budget: 14336, tasks: report.tasks.length });
  expect(report.chatEvidence).toMatchObject({ mode: 'bm25', tasks: report.tasks.length });
});
step('eval/list', async () => {
  const listed = (await call('eval/list')) as Array<{ id: string }>;
  expect(listed.length).toBeGreaterThan(0);
  ids.reportId = listed[0]!.id;
});
step('eval/get', async () => expect(await call('eval/get', { id: ids.reportId })).toBeTruthy());
step('training/bootstrap', async () => {
  await finished(await call('training/bootstrap', { repoPath: repo.root }));
  // `cra bootstrap --out DIR --force`: the run's result is the whole summary the command prints.
  const out = join(scratch, 'bootstrap-out');
  const summary = (await finished(await call('training/bootstrap', { repoPath: repo.root, out, force: true }))) as BootstrapSummary;
  expect(summary).toMatchObject({ dir: out, mined: expect.any(Number), considered: expect.any(Number), durationMs: expect.any(Number), counts: { scope: expect.any(Object) } });
});
step('training/overview', async () => {
  const overview = (await call('training/overview')) as { datasets: Array<{ id: string }> };
  expect(overview.datasets.length).toBeGreaterThan(0);
  ids.dataset = overview.datasets[0]!.id;
});
step('training/samples', async () => expect(await call('training/samples', { dataset: ids.dataset })).toBeTruthy());
step('training/export', async () => expect(await call('training/export', { dataset: ids.dataset, dest: join(scratch, 'export') })).toBeTruthy());
step('training/trainPlan', async () => {
  server.script.chat.push({ json: TRAINING_PLAN });
  await finished(await call('training/trainPlan', { out: join(scratch, 'plan.json') }));
});
step('training/curate', async () => {
  await finished(await call('training/curate', { plan: join(scratch, 'plan.json'), out: join(scratch, 'curated') }));
});
step('run/list', async () => expect(((await call('run/list')) as unknown[]).length).toBeGreaterThan(0));
step('run/cancel', async () => {
  const waitForCancel = ({ signal }: { signal: AbortSignal }) =>
    new Promise<never>((_, reject) => {
      const stop = () => reject(new AppError('CANCELLED', 'Cancelled.'));
      if (signal.aborted) stop();
      signal.addEventListener('abort', stop);
    });
  const { runId, done } = temp.core.runs.start('pull', 'a job to cancel', waitForCancel, { model: 'x' });
  expect(await call('run/cancel', { runId })).toEqual({ cancelled: true });
  await expect(done).rejects.toMatchObject({ code: 'CANCELLED' });
});
step('run/attach', async () => {
  const { run, events, lastSeq, result } = (await call('run/attach', { runId: ids.indexRun })) as RunAttachment;
  expect(run).toMatchObject({ runId: ids.indexRun, kind: 'index', status: 'done' });
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
  expect([events[0]?.event, events.at(-1)?.event]).toEqual(['run/started', 'run/finished']);
  expect(result).toMatchObject({ durationMs: expect.any(Number) });
});
step('repos/add', async () => {
  await finished(await call('repos/add', { path: spare.root }));
});
step('repos/remove', async () => {
  const found = (await call('repos/find', { path: spare.root })) as { id: string } | null;
  await call('repos/remove', { repoId: found!.id });
  expect(await call('repos/find', { path: spare.root })).toBeNull();
});
step('models/setupPlan', async () => expect(await call('models/setupPlan')).toMatchObject({ provider: 'ollama', models: expect.any(Array) }));
step('models/check', async () => {
  const value = (await finished(await call('models/check', { repoPath: repo.root }))) as { results: unknown[] };
  expect(value.results).toHaveLength(3);
});
step('models/checks', async () => expect(((await call('models/checks')) as { results: unknown[] }).results.length).toBe(3));
// Last: the setup rewrites the assignments every earlier step relied on.
step('models/setup', async () => {
  for (const name of ['qwen3:1.7b', 'qwen3:4b', 'qwen2.5-coder:3b', 'nomic-embed-text']) server.offer(name, [20_000]);
  expect(await finished(await call('models/setup'))).toMatchObject({ provider: 'ollama' });
});

describe('every request key succeeds with its example input on a prepared engine', () => {
  it('covers every key of the contract', () => {
    expect(SCENARIO.map(([key]) => key).sort()).toEqual(Object.keys(requests).sort());
  });

  it.each(SCENARIO.map(([key, body]) => ({ key, body })))('$key', async ({ body }) => body(), 60_000);
});
