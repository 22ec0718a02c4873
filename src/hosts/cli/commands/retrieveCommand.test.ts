import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ContextPackage, RetrievalSummary } from '../../../shared/contract';
import { openRawDatabase } from '../../../core/platform/db/raw';
import { packageRoot } from '../../../core/platform/paths';
import { RepoRegistry } from '../../../core/knowledge/repos/registry';
import { PRECISION_QUESTIONS } from '../../../core/features/retrieval/stages/precision';
import { useCliModelRepo } from '../testing/modelRepo';
import { runCra, type CraOutput } from '../testing/cra';
import { repoPaths } from '../../../core/platform/layout';

const CONFIG = '[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\n';
const TASK = 'Fix `load_config` in config.py: it crashes when the settings file is missing';
const STAGES = ['--stages', 'scope,precision'];
const BUDGET = ['--context-window', '32768', '--reserved-tokens', '4096'];
// The model server is named by OLLAMA_HOST, not by the config.
const fx = useCliModelRepo({ prefix: 'cra-cli-retrieve-', config: () => CONFIG });

/** Run cra asynchronously (the test server answers in this process), the model server named by OLLAMA_HOST. */
function cra(args: string[], host = fx.server.url): Promise<CraOutput> {
  return fx.cra(args, { OLLAMA_HOST: host });
}
beforeEach(() => {
  writeFileSync(join(fx.dataDir, 'config.toml'), CONFIG);
  // The judge: scope keeps what it is asked about; pass 1 drops send_mail; pass 2 makes load_config primary; pass 3 gives main its body.
  fx.server.script.respond = (prompt) => {
    const system = (fx.server.requests.at(-1)?.body as { messages?: Array<{ content: string }> }).messages?.[0]?.content ?? '';
    const symbol = /symbol: (\S+)/.exec(prompt)?.[1];
    if (system.includes(PRECISION_QUESTIONS.precision_pass1)) return { text: symbol === 'send_mail' ? 'no' : ' Yes\n' };
    if (system.includes(PRECISION_QUESTIONS.precision_pass2)) return { json: { answer: symbol === 'load_config' ? 'yes' : 'no' } };
    if (system.includes(PRECISION_QUESTIONS.precision_pass3)) return { json: { answer: symbol === 'main' ? 'yes' : 'no' } };
    if (system.includes('You analyse a coding task')) return { json: { intent: 'Handle a missing settings file', files: ['config.py', 'nope.py'], symbols: ['load_config'], concepts: ['settings'] } };
    return { json: { answer: 'yes' } };
  };
});

const repoId = () => {
  const registry = new RepoRegistry(fx.dataDir);
  try {
    return registry.list()[0]!.id;
  } finally {
    registry.close();
  }
};

describe('cra retrieve', () => {
  it('prints the package: files with tier and reasons, symbols with role and cost, tokens of budget; --json the same as data; every decision in the raw DB', async () => {
    const human = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, ...BUDGET]);
    expect(human.stderr).toBe(`info: enrichment not found: no file metadata in the index of ${fx.repo.root}, so scope tier 4 (metadata matches) is skipped. \`cra enrich ${fx.repo.root} --promote\` adds it.\n`);
    expect(human.status).toBe(0);
    expect(human.stdout).toContain('Task analysis: deterministic only (skipped: no model assigned to task_analysis in [models.overrides])');
    // load_config calls json.load: the library symbol is type_context without a judgment.
    expect(human.stdout).toMatch(/Package: 3 files · 1 primary, 1 supporting, 1 type_context · \d+ of 28672 tokens · \d+ judgments/);
    expect(human.stdout).toMatch(/\nconfig\.py {2}tier 1 · named in the task \(“config\.py”\)\n {2}json\.load {2}type_context, signature · lines 2-2 · \d+ tokens · library symbol from json \(no judgment\)\n {2}load_config {2}primary, full source · lines 4-7 · \d+ tokens · named in the task \(“load_config”\); directly involved: yes \(P 1\.00\)\n/);
    expect(human.stdout).toMatch(/\napp\.py {2}tier 1 .*\n {2}main {2}supporting, full source · lines 4-6 · \d+ tokens · calls load_config; judged relevant by qwen3:0\.6b \(P 1\.00\); directly involved: no \(P 0\.00\); full source needed: yes \(P 1\.00\)\n/);
    expect(human.stdout).not.toContain('mailer.py');

    const json = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, '--format', 'json', '--context-window', '6000', '--reserved-tokens', '1000']);
    expect(json.status).toBe(0);
    const { summary, package: pkg } = JSON.parse(json.stdout) as { summary: RetrievalSummary; package: ContextPackage };
    expect(summary).toMatchObject({ files: 3, symbols: { primary: 1, supporting: 1, type_context: 1 }, budget: 5000, dropped: 0, analysis: { enrichment: 'skipped' } });
    expect(pkg.budget.used).toBe(summary.tokensUsed);
    expect(pkg.budget.used).toBeLessThanOrEqual(5000);
    expect(pkg.files.find((f) => f.path === 'config.py')?.items.find((i) => i.symbol?.role === 'primary')?.text).toContain('def load_config(path):');
    expect(pkg.files.find((f) => f.path === 'config.py')?.items[0]).toMatchObject({ symbol: { qualifiedName: 'json.load', kind: 'library', role: 'type_context' }, detail: 'signature', text: 'import json' });
    expect(pkg.edges).toContainEqual({ from: 'app.py', to: 'config.py' });

    // Every decision of the run is in the repository's raw DB under its pass, beside its model call.
    const raw = openRawDatabase(repoPaths(fx.dataDir, repoId()).raw);
    try {
      const runId = raw.prepare("select id from task_runs where mode = 'retrieve' order by started_at desc, rowid desc limit 1").pluck().get() as string;
      const rows = raw.prepare('select stage, subject, decision, model_call_id from retrieval_decisions where run_id = ? order by id').all(runId) as Array<{ stage: string; subject: string; decision: string; model_call_id: number | null }>;
      expect(rows.filter((r) => r.stage === 'precision_pass1').map((r) => [r.subject, r.decision])).toContainEqual(['mailer.py:send_mail', 'excluded']);
      expect(rows.filter((r) => r.stage === 'precision_pass2').map((r) => [r.subject, r.decision])).toContainEqual(['config.py:load_config', 'primary']);
      expect(rows.filter((r) => r.stage === 'precision_pass3').map((r) => [r.subject, r.decision])).toEqual([['app.py:main', 'supporting']]);
      expect(rows.find((r) => r.stage === 'precision' && r.subject === 'mailer.py')?.decision).toBe('excluded');
      expect(rows.find((r) => r.subject === 'config.py:json.load')).toMatchObject({ stage: 'precision', decision: 'type_context', model_call_id: null });
      const calls = raw.prepare('select count(*) from model_calls where run_id = ?').pluck().get(runId) as number;
      expect(calls).toBe(summary.judgments);
      expect(rows.filter((r) => r.model_call_id !== null)).toHaveLength(calls);
    } finally {
      raw.close();
    }
  }, 120_000);

  it('enriches the task analysis when a model is assigned to task_analysis, and prints the package as markdown', async () => {
    writeFileSync(join(fx.dataDir, 'config.toml'), `${CONFIG}[models.overrides]\ntask_analysis = "qwen3:0.6b"\n`);
    const md = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, ...BUDGET, '--format', 'markdown']);
    expect(md.status).toBe(0);
    expect(md.stdout).toMatch(/^# Context package\n\nTask: Fix `load_config`/);
    expect(md.stdout).toMatch(/\n### config\.py:4-7 · load_config \(primary, full source\)\n```\ndef load_config\(path\):/);
    const human = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, ...BUDGET]);
    expect(human.stdout).toContain('Task analysis: deterministic + enrichment by the task_analysis model');
    const analysis = fx.server.requests.filter((r) => JSON.stringify(r.body).includes('You analyse a coding task'));
    expect(analysis).toHaveLength(2);
  }, 120_000);

  it('within a small budget drops what does not fit, with what it needed', async () => {
    const small = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, '--format', 'json', '--context-window', '1120', '--reserved-tokens', '1000']);
    expect(small.status).toBe(0);
    const { package: pkg } = JSON.parse(small.stdout) as { package: ContextPackage };
    expect(pkg.budget.used).toBeLessThanOrEqual(120);
    expect(pkg.dropped.length).toBeGreaterThan(0);
    for (const d of pkg.dropped) expect(d.reasons.at(-1)).toMatchObject({ kind: 'over-budget' });
    const human = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, '--context-window', '1120', '--reserved-tokens', '1000']);
    expect(human.stdout).toMatch(/\nDropped:\n {2}\S+.* · over budget \(needs \d+ tokens, \d+ left\)/);
  }, 120_000);

  it('says run `cra init` without a [models] section, and names the address when no model server answers', async () => {
    writeFileSync(join(fx.dataDir, 'config.toml'), '[budget]\ncontext_window = 8192\nreserved_tokens = 1024\n');
    const noModels = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, ...BUDGET]);
    expect(noModels.status).not.toBe(0);
    expect(noModels.stderr).toMatch(/No \[models\] section in .*config\.toml\. Run `cra init`/);

    writeFileSync(join(fx.dataDir, 'config.toml'), CONFIG);
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const down = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, ...BUDGET], `http://127.0.0.1:${port}`);
    expect(down.status).not.toBe(0);
    expect(down.stderr).toContain(`No model server answers at http://127.0.0.1:${port} (set by OLLAMA_HOST)`);
  }, 120_000);
});

describe('cra retrieve: every judgment failed', () => {
  it('fails with the first failure\'s reason (HTTP 500 from the model server; a wrong port where another web server answers), printing no package', async () => {
    const respond = fx.server.script.respond;
    fx.server.script.respond = () => ({ fault: 'http500' });
    try {
      const broken = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, ...BUDGET]);
      expect(broken.stdout).toBe('');
      expect(broken.status).toBe(1);
      expect(broken.stderr).toMatch(/^cra: error: Every judgment failed \((\d+) of \1 model calls\), so nothing could be judged and no package is printed\. The first failure: MODEL_ERROR: The model server at http:\/\/127\.0\.0\.1:\d+ failed \(HTTP 500\): scripted internal server error.*`cra logs --run retrieve-\S+ --errors` lists the calls\.\n$/);
    } finally {
      fx.server.script.respond = respond;
    }

    // Another web server on the port: every call is refused with its own 400.
    const other = createHttpServer((_req, res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('this is not a model server'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const wrong = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, ...BUDGET, '--format', 'json'], `http://127.0.0.1:${(other.address() as { port: number }).port}`);
      // No package. (The ollama library itself prints "Getting text from response" on stdout for each
      // error reply that is not JSON: a known defect of that dependency, reported, not this command's output.)
      expect(wrong.stdout.replace(/^Getting text from response\n/gm, '')).toBe('');
      expect(wrong.status).toBe(1);
      expect(wrong.stderr).toMatch(/^cra: error: Every judgment failed \(\d+ of \d+ model calls\).* The first failure: MODEL_ERROR: The model server at http:\/\/127\.0\.0\.1:\d+ refused the request \(HTTP 400\)/);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  }, 120_000);
});

describe('cra retrieve: strict flags (fail fast with the reason, before any model call)', () => {
  const fails = async (args: string[], message: RegExp | string) => {
    const before = fx.server.requests.length;
    const out = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...args]);
    expect(out.status, out.stderr).not.toBe(0);
    if (typeof message === 'string') expect(out.stderr).toContain(message);
    else expect(out.stderr).toMatch(message);
    expect(out.stdout).toBe('');
    expect(out.stderr).not.toMatch(/internal error/i);
    expect(fx.server.requests.length).toBe(before);
  };

  it('needs an explicit, valid stage list (the names checked by the contract, once)', async () => {
    await fails([...BUDGET], '--stages is required: name the stages to run, e.g. --stages scope,precision');
    await fails(['--stages', '', ...BUDGET], 'Invalid input for retrieval/run: stages: the stage list is empty: name the stages to run (allowed: routing, scope, similarity, precision, refilter).');
    await fails(['--stages', 'scope,precison', ...BUDGET], 'cra: error: Invalid input for retrieval/run: stages.1: "precison" is not a retrieval stage; use one of routing, scope, similarity, precision, refilter.');
    await fails(['--stages', 'precision', ...BUDGET], 'must include scope');
    await fails(['--stages', 'scope,scope', ...BUDGET], 'listed twice');
  }, 120_000);

  it('needs a budget in exactly one form, and a window, reserved tokens and format that make sense', async () => {
    await fails([...STAGES], 'A budget is required: give --context-window N and --reserved-tokens M');
    await fails([...STAGES, '--context-window', '8192'], '--context-window and --reserved-tokens go together: --reserved-tokens is missing');
    await fails([...STAGES, '--reserved-tokens', '100'], '--context-window is missing');
    await fails([...STAGES, ...BUDGET, '--budget-config', join(fx.dataDir, 'b.json')], '--budget-config cannot be combined with --context-window/--reserved-tokens');
    await fails([...STAGES, '--context-window', '0', '--reserved-tokens', '0'], '"0" is not a valid context window; give a whole number of tokens above 0');
    await fails([...STAGES, '--context-window', '100', '--reserved-tokens', '-1'], /is not a valid number of reserved tokens|unknown option|argument missing/);
    await fails([...STAGES, '--context-window', '4096', '--reserved-tokens', '4096'], 'Invalid input for retrieval/run: budget.reservedTokens: the reserved tokens (4096) must be fewer than the context window (4096)');
    await fails([...STAGES, ...BUDGET, '--format', 'yaml'], '--format must be json or markdown (got "yaml")');
    await fails([...STAGES, '--budget-config', join(fx.dataDir, 'missing.json')], 'Cannot read the budget config');
  }, 120_000);

  it('takes the budget (and its safety margin) from --budget-config, the model and server from --model/--base-url, and says more with -v', async () => {
    const file = join(fx.dataDir, 'budget.json');
    writeFileSync(file, '{"context_window": 9000, "reserved_tokens": 1000, "safety_margin": 0.2}');
    // The config points at a server that is not there; the flags name the loopback one and its model.
    writeFileSync(join(fx.dataDir, 'config.toml'), '[models]\nreasoning = "absent:1b"\ncoding = "absent:1b"\nbase_url = "http://127.0.0.1:9"\n');
    fx.server.install('qwen3:1.7b');
    const seen = fx.server.requests.length;
    const out = await runCra(fx.dataDir, ['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, '--budget-config', file, '--model', 'qwen3:1.7b', '--base-url', fx.server.url, '--format', 'json', '-v']);
    expect(out.status, out.stderr).toBe(0);
    const { summary } = JSON.parse(out.stdout) as { summary: RetrievalSummary };
    expect(summary).toMatchObject({ budget: 8000, config: { stages: ['scope', 'precision'], contextWindow: 9000, reservedTokens: 1000, safetyMargin: 0.2, concurrency: 1 } });
    const models = new Set(fx.server.requests.slice(seen).filter((r) => r.path === '/api/chat').map((r) => (r.body as { model: string }).model));
    expect(models).toEqual(new Set(['qwen3:1.7b']));
    expect(out.stderr).toContain('Budget: context window 9000 − reserved 1000 = 8000 tokens · safety margin 0.2 · concurrency 1');
    expect(out.stderr).toMatch(/Stage scope: \d+ files, \d+ decisions, \d+ ms\nStage precision: /);
    expect(out.stderr).toMatch(/Server token counts: \d+ calls, \d+ prompt \+ \d+ completion tokens/);
  }, 120_000);

  it('a killed run leaves its session file and no package; the next run sweeps it (archived into raw) and leaves no session behind', async () => {
    const sessions = repoPaths(fx.dataDir, repoId()).sessions;
    // Every judgment stalls: the run is killed in the middle of scope.
    const respond = fx.server.script.respond;
    fx.server.script.respond = () => ({ fault: 'stall' });
    const seen = fx.server.requests.length;
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', fx.dataDir, 'retrieve', TASK, '--repo', fx.repo.root, ...STAGES, ...BUDGET, '--format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OLLAMA_HOST: fx.server.url } });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const closed = new Promise((resolve) => child.on('close', resolve));
    for (let i = 0; i < 600 && !fx.server.requests.slice(seen).some((r) => r.path === '/api/chat'); i++) await new Promise((r) => setTimeout(r, 100));
    const left = readdirSync(sessions);
    expect(left.filter((f) => f.endsWith('.sqlite'))).toHaveLength(1);
    child.kill('SIGKILL');
    await closed;
    expect(stdout).toBe('');
    fx.server.script.respond = respond;
    const again = await cra(['retrieve', TASK, '--repo', fx.repo.root, ...STAGES, ...BUDGET, '--format', 'json']);
    expect(again.status, again.stderr).toBe(0);
    expect(readdirSync(sessions)).toEqual([]);
    const raw = openRawDatabase(repoPaths(fx.dataDir, repoId()).raw);
    try {
      const killedRun = raw.prepare("select id from task_runs where mode = 'retrieve' and status = 'running'").pluck().all() as string[];
      expect(killedRun).toHaveLength(1);
      // The killed run's session is in the archive under its run id, beside the finished run's.
      expect(raw.prepare('select count(*) from session_archives where run_id = ?').pluck().get(killedRun[0])).toBe(1);
    } finally {
      raw.close();
    }
  }, 120_000);
});
