import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../core/platform/paths';
import { writeSample } from '../../core/testing/sampleRepo';
import { createTestRepo, type TestRepo } from '../../core/testing/gitRepo';
import { connectCraMcp, type McpSession } from './testing/mcpClient';

// The SDK's own client drives the real `cra mcp` (bin/cra.js, a child process) over stdio, on
// real git repositories indexed by `cra index` into a real data folder.

function cra(dataDir: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 120_000 });
  expect(result.status, result.stderr).toBe(0);
  return result;
}

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tool outputs, checked field by field
const text = (r: { content: unknown }) => (r.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');

let repo: TestRepo;
let other: TestRepo;
let unindexed: TestRepo;
let dataDir: string;
let session: McpSession;

beforeAll(async () => {
  repo = createTestRepo();
  writeSample(repo);
  // A link that points out of the repository, committed: the index lists it, reading it must be refused.
  symlinkSync('/etc/hostname', join(repo.root, 'escape.txt'));
  // One long function: more than a small budget holds.
  const steps = Array.from({ length: 80 }, (_, i) => `    jobs.append(("step_${i}", throttle * ${i}))`).join('\n');
  repo.write('pkg/scheduler.py', `def schedule_throttled_jobs(throttle):\n    jobs = []\n${steps}\n    return jobs\n`);
  repo.commit('add a link', 4);
  other = createTestRepo();
  other.write('src/billing.ts', 'export function computeInvoiceTotal(lines: number[]): number {\n  return lines.reduce((a, b) => a + b, 0);\n}\n');
  other.commit('billing', 1);
  unindexed = createTestRepo();
  unindexed.write('a.py', 'x = 1\n');
  unindexed.commit('a', 1);
  dataDir = mkdtempSync(join(tmpdir(), 'cra-mcp-'));
  cra(dataDir, 'index', repo.root, '--json');
  cra(dataDir, 'index', other.root, '--json');
  session = await connectCraMcp(dataDir, ['--repo', repo.root]);
}, 240_000);

afterAll(async () => {
  await session?.close();
  for (const r of [repo, other, unindexed]) r?.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('cra mcp --repo (one repository)', () => {
  it('lists six read-only tools, each with a description, an input schema without `repo` and an output schema', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_context', 'list_repositories', 'read_code', 'related_files', 'repo_overview', 'search_code']);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(80);
      expect(t.outputSchema).toBeDefined();
      expect(Object.keys(t.inputSchema.properties ?? {})).not.toContain('repo');
      expect(t.annotations?.readOnlyHint).toBe(true);
    }
    expect(session.client.getServerVersion()?.name).toBe('clean-room');
  });

  it('search_code ranks the defining file first, with path:line citations, symbols and reasons', async () => {
    const r = await session.call('search_code', { query: 'greet' });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as Structured;
    expect(s.index.state).toBe('fresh');
    expect(s.results[0].path).toBe('web/greet.ts');
    expect(s.results[0].citation).toMatch(/^web\/greet\.ts:\d+$/);
    expect(s.results[0].symbols[0]).toMatchObject({ name: 'greet', startLine: 1, endLine: 3, citation: 'web/greet.ts:1-3' });
    expect(s.results[0].reasons.length).toBeGreaterThan(0);
    expect(text(r)).toContain('web/greet.ts:1-3');
  });

  it('get_context without a judge model answers a model-free package within the budget, with tiers and reasons', async () => {
    const r = await session.call('get_context', { task: 'Engine.start should not call stop', budgetTokens: 2000 });
    expect(r.isError, text(r)).toBeFalsy();
    const s = r.structuredContent as Structured;
    expect(s.mode).toBe('model-free');
    expect(s.note).toMatch(/model/i);
    expect(s.budget.used).toBeLessThanOrEqual(2000);
    expect(s.files[0].path).toBe('pkg/core.py');
    expect(s.files[0].tier).toBe(1);
    expect(s.files[0].why).not.toBe('');
    const item = s.files[0].items.find((i: Structured) => i.symbol === 'start' || i.symbol === 'Engine.start' || /def start/.test(i.text));
    expect(item?.citation).toMatch(/^pkg\/core\.py:\d+-\d+$/);
    expect(text(r)).toContain('pkg/core.py');
  });

  it('get_context with a tiny budget lists what it left out and why', async () => {
    const r = await session.call('get_context', { task: 'schedule_throttled_jobs', budgetTokens: 200, useModels: false });
    const s = r.structuredContent as Structured;
    expect(s.budget.used).toBeLessThanOrEqual(200);
    expect(s.dropped[0], JSON.stringify(s).slice(0, 1500)).toMatchObject({ path: 'pkg/scheduler.py', symbol: 'schedule_throttled_jobs' });
    expect(s.dropped[0].why).toMatch(/needs \d+ tokens/);
    expect(text(r)).toMatch(/Left out:\n {2}pkg\/scheduler\.py schedule_throttled_jobs/);
  });

  it("read_code returns a symbol's body by path and name, or by name alone, and a line range", async () => {
    const byPath = await session.call('read_code', { path: 'pkg/core.py', symbol: 'Engine.start' });
    const s = byPath.structuredContent as Structured;
    expect(byPath.isError, text(byPath)).toBeFalsy();
    expect(s.text).toMatch(/^ {4}def start\(self\):/);
    expect(s.text).toContain('return self.run()');
    expect(s.citation).toBe(`pkg/core.py:${s.startLine}-${s.endLine}`);
    const byName = await session.call('read_code', { symbol: 'greet' });
    expect(byName.structuredContent).toMatchObject({ path: 'web/greet.ts', startLine: 1, endLine: 3, truncated: false });
    const range = await session.call('read_code', { path: 'pkg/util.py', startLine: 4, endLine: 6 });
    expect((range.structuredContent as Structured).text).toBe('def helper(x):\n    """Double it."""\n    return x * 2');
  });

  it('related_files lists importers, co-change neighbours and tests', async () => {
    const greet = (await session.call('related_files', { path: 'web/greet.ts' })).structuredContent as Structured;
    expect(greet.importedBy).toContain('web/app.ts');
    expect(greet.tests).toContain('web/greet.test.ts');
    const core = (await session.call('related_files', { path: 'pkg/core.py' })).structuredContent as Structured;
    expect(core.imports).toContain('pkg/util.py');
    expect(core.coChanges.map((c: Structured) => c.path)).toContain('pkg/util.py');
  });

  it('repo_overview gives languages, folders, the latest commits and the index time; list_repositories lists both', async () => {
    const o = (await session.call('repo_overview')).structuredContent as Structured;
    expect(o.languages.python).toBeGreaterThan(0);
    expect(o.modules.map((m: Structured) => m.path)).toEqual(expect.arrayContaining(['pkg', 'web']));
    expect(o.recentCommits[0].message).toBe('add a link');
    expect(o.index.lastIndexedAt).not.toBeNull();
    const list = (await session.call('list_repositories')).structuredContent as Structured;
    expect(list.repositories.map((r: Structured) => r.path).sort()).toEqual([repo.root, other.root].sort());
  });

  it.each([
    ['../../etc/passwd', /outside the repository/],
    ['/etc/passwd', /absolute path/],
    ['.git/config', /\.git folder/],
    ['escape.txt', /points outside the repository/],
    ['no/such/file.ts', /does not exist/],
  ])('read_code refuses %s with an MCP tool error naming the problem', async (path, message) => {
    const r = await session.call('read_code', { path });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(message);
    expect(text(r)).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('answers oversized and malformed requests as tool errors, and keeps serving', async () => {
    const huge = [
      await session.call('search_code', { query: 'x'.repeat(5000) }),
      await session.call('get_context', { task: 'y'.repeat(9000) }),
      await session.call('get_context', { task: 'z', budgetTokens: 1_000_000_000 }),
      await session.call('search_code', { query: 'greet', limit: 10_000 }),
      await session.call('read_code', {}),
    ];
    for (const r of huge) expect(r.isError, text(r)).toBe(true);
    expect(text(huge[0]!)).toMatch(/query/);
    expect(text(huge[4]!)).toMatch(/path.*symbol/);
    const unknownTool = await session.client.callTool({ name: 'write_file', arguments: {} }).then((r) => r.isError, () => 'protocol error');
    expect([true, 'protocol error']).toContain(unknownTool);
    expect((await session.call('search_code', { query: 'greet' })).isError).toBeFalsy();
  });

  it('answers concurrent calls', async () => {
    const calls = await Promise.all([
      session.call('search_code', { query: 'helper' }),
      session.call('read_code', { symbol: 'helper' }),
      session.call('related_files', { path: 'pkg/util.py' }),
      session.call('repo_overview'),
      session.call('get_context', { task: 'double the helper', useModels: false }),
      session.call('search_code', { query: 'Engine' }),
    ]);
    for (const r of calls) expect(r.isError, text(r)).toBeFalsy();
    expect((calls[0]!.structuredContent as Structured).results[0].path).toBe('pkg/util.py');
  });

  it('updates the index before answering when the repository changed between calls', async () => {
    expect(((await session.call('search_code', { query: 'farewell' })).structuredContent as Structured).results.map((r: Structured) => r.path)).not.toContain('web/farewell.ts');
    repo.write('web/farewell.ts', "export function farewell(name: string): string {\n  return 'bye ' + name;\n}\n");
    repo.commit('farewell', 5);
    const after = (await session.call('search_code', { query: 'farewell' })).structuredContent as Structured;
    expect(after.index).toMatchObject({ state: 'fresh', reindexed: true });
    expect(after.results[0].path).toBe('web/farewell.ts');
    // An uncommitted edit counts too.
    repo.write('web/farewell.ts', "export function farewell(name: string): string {\n  return 'so long ' + name;\n}\n");
    const edited = (await session.call('read_code', { symbol: 'farewell' })).structuredContent as Structured;
    expect(edited.text).toContain('so long');
    const again = (await session.call('search_code', { query: 'farewell' })).structuredContent as Structured;
    expect(again.index.reindexed).toBe(false);
  });
});

describe('cra mcp (every repository)', () => {
  it('takes a repository per call, by path or id, and answers unknown and never-indexed ones with what to do', async () => {
    const multi = await connectCraMcp(dataDir);
    try {
      const { tools } = await multi.client.listTools();
      expect(tools.find((t) => t.name === 'search_code')!.inputSchema.required).toContain('repo');
      const byPath = (await multi.call('search_code', { repo: other.root, query: 'invoice total' })).structuredContent as Structured;
      expect(byPath.results[0].path).toBe('src/billing.ts');
      const id = ((await multi.call('list_repositories')).structuredContent as Structured).repositories.find((r: Structured) => r.path === other.root).id;
      const byId = (await multi.call('read_code', { repo: id, symbol: 'computeInvoiceTotal' })).structuredContent as Structured;
      expect(byId.citation).toBe('src/billing.ts:1-3');
      const missing = await multi.call('search_code', { repo: join(tmpdir(), 'no-such-repository-here'), query: 'x' });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toMatch(/No repository at .*list_repositories/);
      const never = await multi.call('repo_overview', { repo: unindexed.root });
      expect(never.isError).toBe(true);
      expect(text(never)).toContain(`cra index ${unindexed.root}`);
    } finally {
      await multi.close();
    }
  }, 120_000);

  it('a server started on a never-indexed repository says which command to run', async () => {
    const fixed = await connectCraMcp(dataDir, ['--repo', unindexed.root]);
    try {
      const r = await fixed.call('search_code', { query: 'x' });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(`cra index ${unindexed.root}`);
    } finally {
      await fixed.close();
    }
  }, 120_000);
});

describe('cra mcp --wait 0 (an update that takes longer than a call may wait)', () => {
  it('answers from the previous index saying so, and fresh once the update has finished', async () => {
    const impatient = await connectCraMcp(dataDir, ['--repo', repo.root, '--wait', '0']);
    try {
      await impatient.call('repo_overview'); // the first call knows nothing yet: it starts (and may not wait for) an update
      repo.write('pkg/late.py', 'def arrives_late():\n    return 1\n');
      const first = (await impatient.call('search_code', { query: 'arrives_late' })).structuredContent as Structured;
      expect(first.index.state).toBe('updating');
      expect(first.index.note).toMatch(/previous index/);
      let state = first.index.state as string;
      for (let i = 0; i < 300 && state !== 'fresh'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = ((await impatient.call('repo_overview')).structuredContent as Structured).index.state;
      }
      expect(state).toBe('fresh');
      const later = (await impatient.call('search_code', { query: 'arrives_late' })).structuredContent as Structured;
      expect(later.results[0].path).toBe('pkg/late.py');
    } finally {
      await impatient.close();
    }
  }, 120_000);
});

describe('cra mcp on the wire', () => {
  it('speaks the current protocol version and writes nothing but JSON-RPC to stdout, also while it re-indexes', async () => {
    const { LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/sdk/types.js');
    repo.write('web/wire.ts', 'export const wire = 1;\n'); // a change, so the call below re-indexes first
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, 'mcp', '--repo', repo.root], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const reply = (id: number) =>
      new Promise<Structured>((resolve) => {
        const check = () => {
          const found = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Structured).find((m) => m.id === id);
          if (found) resolve(found);
          else setTimeout(check, 50);
        };
        check();
      });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect((await reply(1)).result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'wire' } } });
    const answer = await reply(2);
    expect(answer.result.structuredContent.index.reindexed).toBe(true);
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    // Every line parsed above; nothing else (no log line, no progress) reached stdout.
    for (const line of out.split('\n').filter(Boolean)) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
    expect(child.exitCode).toBe(0);
  }, 120_000);
});
