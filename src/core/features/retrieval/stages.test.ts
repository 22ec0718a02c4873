import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/contract';
import { openDatabase, type Db } from '../../platform/db/open';
import { CURATED_MIGRATIONS } from '../../knowledge/kb/schema';
import { openRawDatabase } from '../../platform/db/raw';
import { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { ScriptedReply } from '../../testing/ollamaTestServer';
import { loopbackClient, useRetrievalHarness } from '../../testing/retrievalHarness';
import { parseToml, validateConfig } from '../../platform/config/load';
import { LlmClient } from '../../platform/llm/client';
import { ModelRouter } from '../../platform/llm/router';
import { RawCallLog } from '../../platform/logs/callLog';
import { readSelection, runSelection } from './batched';
import { RawDecisionLog } from './decisionLog';
import { buildPackage, DEFAULT_SAFETY_MARGIN, estimateTokens } from './package';
import { preflightRetrieval } from './preflight';
import { buildStages, type StageName } from './pipeline';
import { runPipeline, type ContextFile } from './stage';
import { candidatePairs, groupsOf, SIMILARITY_QUESTION } from './stages/similarity';
import { scopeCandidates, SCOPE_QUESTION } from './stages/scope';
import { analyzeTask, type TaskRecord } from './taskAnalysis';

// Similarity, routing, the re-filter, scope tiers 0 and 4, preflight and budget files, over real
// HTTP to the loopback server on the real indexed git fixture.

const h = useRetrievalHarness('qwen3:0.6b');
let raw: Db;
let llm: LlmClient;
const TASK = 'Fix `tokenize` in calc/tokenizer.py: it drops newline characters';
const read = (p: string) => readFileSync(join(h.fx.repo.root, p), 'utf8');

beforeEach(() => {
  raw = openRawDatabase(':memory:');
  llm = loopbackClient(h.server, raw);
});
afterEach(() => raw.close());

/** Answer by the system prompt of the request that carries this prompt. */
function script(answer: (system: string, prompt: string) => ScriptedReply) {
  h.server.script.respond = (prompt) => {
    const req = h.server.requests.findLast((r) => JSON.stringify(r.body).includes(JSON.stringify(prompt).slice(1, -1)));
    return answer((req?.body as { messages?: Array<{ content: string }> } | undefined)?.messages?.[0]?.content ?? '', prompt);
  };
}
const yes = (v: boolean): ScriptedReply => ({ json: { answer: v ? 'yes' : 'no' } });
const task = (text = TASK): Promise<TaskRecord> => analyzeTask(text, h.fx.kb, { id: 'task-s' });
const run = async (names: StageName[], over: { task?: TaskRecord; budget?: number } = {}) =>
  runPipeline({ stages: buildStages(names, { scope: { searchSeeds: 0 } }), kb: h.fx.kb, task: over.task ?? (await task()), llm, runId: 'run-s', budgetTokens: over.budget ?? 8000, decisions: new RawDecisionLog(raw), readSource: read });
const decisions = (stage: string) => raw.prepare('select subject, decision, model_call_id as call from retrieval_decisions where stage = ? order by id').all(stage) as Array<{ subject: string; decision: string; call: number | null }>;

describe('similarity', () => {
  it('judges each pair once (its own call and decision), groups the related files, and adds the relation to both', async () => {
    script((system, prompt) => {
      if (system.includes(SCOPE_QUESTION)) return yes(true);
      if (system.includes(SIMILARITY_QUESTION)) return yes(/File A:\npath: calc\/tokenizer\.py[\s\S]*File B:\npath: (calc\/parser\.py|tests\/test_tokenizer\.py)/.test(prompt));
      throw new Error(`unexpected: ${system}`);
    });
    const result = await run(['scope', 'similarity']);
    const files = result.context.files.map((f) => f.path);
    expect(files).toEqual(['calc/tokenizer.py', 'calc/parser.py', 'tests/test_tokenizer.py', 'docs/CHANGELOG.md']);
    const pairs = decisions('similarity');
    expect(pairs).toHaveLength(6);
    expect(pairs.filter((p) => p.decision === 'related').map((p) => p.subject)).toEqual(['calc/tokenizer.py|calc/parser.py', 'calc/tokenizer.py|tests/test_tokenizer.py']);
    expect(new Set(pairs.map((p) => p.call)).size).toBe(6);
    expect(raw.prepare("select count(*) from model_calls where stage = 'similarity'").pluck().get()).toBe(6);
    expect(result.context.groups).toEqual([['calc/tokenizer.py', 'calc/parser.py', 'tests/test_tokenizer.py']]);
    expect(result.context.files[1]!.reasons.at(-1)).toMatchObject({ kind: 'related', detail: { with: 'calc/tokenizer.py', model: 'qwen3:0.6b' } });
    // The package keeps a group together and lists it.
    const pkg = buildPackage({ task: { id: 't', text: TASK }, files: result.context.files, budgetTokens: 8000, readSource: read, groups: result.context.groups });
    expect(pkg.groups).toEqual([['calc/tokenizer.py', 'calc/parser.py', 'tests/test_tokenizer.py']]);
  });

  it('caps the pairs (the first files\' pairs first) and groups transitively', () => {
    const f = (path: string): ContextFile => ({ fileId: 0, path, tier: 1, reasons: [] });
    const files = ['a', 'b', 'c', 'd'].map(f);
    const { judged, overCap } = candidatePairs(files, 3);
    expect(judged.map(([x, y]) => x.path + y.path)).toEqual(['ab', 'ac', 'bc']);
    expect(overCap.map(([x, y]) => x.path + y.path)).toEqual(['ad', 'bd', 'cd']);
    expect(groupsOf(files, [['c', 'd'], ['a', 'd']])).toEqual([['a', 'c', 'd']]);
  });
});

describe('routing (one batched call)', () => {
  it('runs only the optional stages it picks; scope always runs', async () => {
    script((system) => (system.includes('optional retrieval stages') ? { json: { stages: ['similarity'] } } : yes(false)));
    const result = await run(['routing', 'scope', 'precision', 'similarity']);
    expect(result.stages.map((s) => [s.name, s.skipped ?? false])).toEqual([['routing', false], ['scope', false], ['precision', true], ['similarity', false]]);
    expect(decisions('routing').map((d) => [d.subject, d.decision])).toEqual([['precision', 'skip'], ['similarity', 'run']]);
    expect(raw.prepare("select count(*) from model_calls where stage = 'routing'").pluck().get()).toBe(1);
    expect(raw.prepare("select count(*) from model_calls where stage like 'precision%'").pluck().get()).toBe(0);
  });

  it('runs every listed stage when the answer cannot be read, and logs why', async () => {
    script((system) => (system.includes('optional retrieval stages') ? { text: 'precision, I think' } : yes(false)));
    const result = await run(['routing', 'scope', 'precision']);
    expect(result.stages.map((s) => s.skipped ?? false)).toEqual([false, false, false]);
    const row = raw.prepare("select reason from retrieval_decisions where stage = 'routing'").pluck().get() as string;
    expect(JSON.parse(row).judgment).toMatchObject({ fallback: true, problem: 'the reply is not one JSON object' });
  });
});

describe('over-budget re-filter (one batched call)', () => {
  it('makes no call when everything fits', async () => {
    script(() => yes(true));
    await run(['scope', 'refilter'], { budget: 8000 });
    expect(raw.prepare("select count(*) from model_calls where stage = 'refilter'").pluck().get()).toBe(0);
  });

  it('when over budget, keeps the seeds and the chosen files that fit; the choice past the budget is evicted by priority', async () => {
    let prompt = '';
    script((system, p) => {
      if (system.includes('fit the context')) {
        prompt = p;
        return { json: { keep: ['docs/CHANGELOG.md', 'calc/parser.py', 'tests/test_tokenizer.py'] } };
      }
      return yes(true);
    });
    const whole = await run(['scope']);
    const costs = buildPackage({ task: { id: 't', text: TASK }, files: whole.context.files, budgetTokens: 1e9, readSource: read });
    const cost = (p: string) => { const f = costs.files.find((x) => x.path === p)!; return f.headerTokens + f.items.reduce((n, i) => n + i.tokens, 0); };
    const header = costs.budget.used - costs.files.reduce((n, f) => n + cost(f.path), 0);
    // Room for the seed and the two tier-2 files, not for the changelog (tier 3) as well.
    // (each kept file's header also names the re-filter: its reason's words)
    const reasonTokens = estimateTokens('; kept by the budget re-filter (qwen3:0.6b)', DEFAULT_SAFETY_MARGIN) + 1;
    const budget = header + cost('calc/tokenizer.py') + cost('calc/parser.py') + cost('tests/test_tokenizer.py') + 2 * reasonTokens;
    expect(budget).toBeLessThan(costs.budget.used);
    raw.exec('delete from retrieval_decisions; delete from model_calls');
    const result = await run(['scope', 'refilter'], { budget });
    expect(prompt).toMatch(/Always kept:\n- calc\/tokenizer\.py \(tier 1, \d+ tokens\)\nChoose from:\n- calc\/parser\.py/);
    // The model chose all three; past the tokens left, the lowest-priority choice (tier 3) goes.
    expect(result.context.files.map((f) => f.path)).toEqual(['calc/tokenizer.py', 'calc/parser.py', 'tests/test_tokenizer.py']);
    expect(decisions('refilter').map((d) => [d.subject, d.decision])).toEqual([['calc/parser.py', 'kept'], ['tests/test_tokenizer.py', 'kept'], ['docs/CHANGELOG.md', 'evicted']]);
    const pkg = buildPackage({ task: { id: 't', text: TASK }, files: result.context.files, budgetTokens: budget, readSource: read });
    expect(pkg.dropped).toEqual([]);
    expect(pkg.budget.used).toBeLessThanOrEqual(budget);
  });

  it('keeps every file (priority eviction in the package) when the reply cannot be read', async () => {
    script((system) => (system.includes('fit the context') ? { text: '{"keep": "all of them"}' } : yes(true)));
    const result = await run(['scope', 'refilter'], { budget: 300 });
    expect(result.context.files).toHaveLength(4);
    const refilter = decisions('refilter');
    expect(refilter.length).toBeGreaterThan(0);
    expect(refilter.every((d) => d.decision === 'kept')).toBe(true);
    const pkg = buildPackage({ task: { id: 't', text: TASK }, files: result.context.files, budgetTokens: 300, readSource: read });
    expect(pkg.budget.used).toBeLessThanOrEqual(300);
  });
});

describe('batched selection rules', () => {
  it('R3: a prompt that does not fit the model\'s window is not sent; the reply is read strictly and unknown items are set apart', async () => {
    const toml = `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${h.server.url}"\ncontext_window = 64\n`;
    const router = new ModelRouter({ values: validateConfig(parseToml(toml, 't'), 't'), files: ['t'], primaryFile: 't' });
    const small = new LlmClient({ router: () => router, log: new RawCallLog(raw), retry: { attempts: 1 } });
    const call = { stage: 'refilter', system: 'Choose.', prompt: `Task:\n${'x'.repeat(400)}`, offered: ['a.py', 'b.py'], key: 'keep' };
    const tooBig = await runSelection({ ...call, llm: small });
    expect(tooBig).toMatchObject({ problem: expect.stringMatching(/does not fit the 64-token window of qwen3:0\.6b/) });
    expect(tooBig.picked).toBeUndefined();
    expect(h.server.requests.filter((r) => r.path === '/api/chat')).toEqual([]);
    h.server.script.respond = undefined;
    h.server.script.chat.push({ text: '{"keep": ["b.py", "zz.py"]}' });
    expect(await runSelection({ ...call, prompt: 'Task: t', llm })).toMatchObject({ picked: ['b.py'], unknown: ['zz.py'] });
    for (const text of ['{"keep": "a.py"}', 'keep a.py', '{"keep": ["a.py"]} and more', '']) expect(readSelection(text, 'keep')).toHaveProperty('problem');
    expect(readSelection('{"keep": ["a.py"]}', 'keep', 'length')).toEqual({ problem: 'the reply was cut off by the token limit' });
  });
});

describe('scope tiers 0 and 4', () => {
  it('tier 0: files given with the task come first and are never judged', async () => {
    script(() => yes(false));
    const t = { ...(await task()), givenFiles: [{ path: 'calc/units.py', reason: { kind: 'plan-file' as const, detail: { step: 's1' } } }] };
    const c = await scopeCandidates(h.fx.kb, t, { searchSeeds: 0 });
    expect(c[0]).toMatchObject({ tier: 0, path: 'calc/units.py', relation: { kind: 'plan-file', detail: { step: 's1' } } });
    const result = await run(['scope'], { task: t });
    expect(result.context.files.map((f) => [f.path, f.tier])).toEqual([['calc/units.py', 0], ['calc/tokenizer.py', 1]]);
    const prompts = raw.prepare("select prompt from model_calls where stage = 'scope'").pluck().all() as string[];
    expect(prompts.some((p) => p.includes('path: calc/units.py'))).toBe(false);
  });

  it('tier 4: with promoted metadata, files sharing the task\'s concepts are judged candidates; without, none', async () => {
    const t = await task('Fix the unit conversion: metric lengths are wrong');
    expect((await scopeCandidates(h.fx.kb, t, { searchSeeds: 0 })).filter((c) => c.tier === 4)).toEqual([]);
    const curated = join(h.fx.dataDir, 'curated.sqlite');
    const db = openDatabase(curated);
    const units = h.fx.kb.getFileByPath('calc/units.py')!.id;
    const cli = h.fx.kb.getFileByPath('calc/cli.py')!.id;
    db.prepare('insert into file_metadata (file_id, domain, module, concepts_json, summary, updated_at) values (?, ?, ?, ?, ?, ?)').run(units, 'units', 'calc', JSON.stringify(['conversion', 'metric']), 'feet to meters', 'now');
    db.prepare('insert into file_metadata (file_id, domain, module, concepts_json, summary, updated_at) values (?, ?, ?, ?, ?, ?)').run(cli, 'cli', 'calc', JSON.stringify(['metric']), 'entry point', 'now');
    const kb = KnowledgeBase.open(curated, 'calc');
    try {
      const c = (await scopeCandidates(kb, t, { searchSeeds: 0 })).filter((x) => x.tier === 4);
      expect(c.map((x) => [x.path, x.relation])).toEqual([
        ['calc/units.py', { kind: 'metadata-match', detail: { matched: ['conversion', 'metric'] } }],
        ['calc/cli.py', { kind: 'metadata-match', detail: { matched: ['metric'] } }],
      ]);
      expect(preflightRetrieval({ resolveModel: () => undefined, kb, repoPath: '/r' })).toEqual({ hasMetadata: true, info: [] });
    } finally {
      kb.close();
      db.exec('delete from file_metadata');
      db.close();
    }
  });
});

describe('preflight', () => {
  it('passes with one info line when enrichment is absent; names cra init and cra index for the hard failures', () => {
    const ok = preflightRetrieval({ resolveModel: () => undefined, kb: h.fx.kb, repoPath: '/r' });
    expect(ok.hasMetadata).toBe(false);
    expect(ok.info).toEqual(['enrichment not found: no file metadata in the index of /r, so scope tier 4 (metadata matches) is skipped. `cra enrich /r --promote` adds it.']);
    // A real index with no files (a first index that found nothing to read).
    const dir = mkdtempSync(join(tmpdir(), 'cra-empty-index-'));
    try {
      openDatabase(join(dir, 'curated.sqlite'), { migrations: CURATED_MIGRATIONS }).close();
      const empty = KnowledgeBase.open(join(dir, 'curated.sqlite'), 'empty');
      try {
        expect(() => preflightRetrieval({ resolveModel: () => undefined, kb: empty, repoPath: '/r' })).toThrow(/has no files; run `cra index \/r`/);
      } finally {
        empty.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const noModels = () => {
      throw new AppError('CONFIG_MISSING', 'No [models] section in /x/config.toml.');
    };
    expect(() => preflightRetrieval({ resolveModel: noModels, kb: h.fx.kb, repoPath: '/r' })).toThrow('No [models] section in /x/config.toml. Run `cra init` to configure models.');
  });
});

