import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/platform/paths';
import { repoIdFor } from '../../../core/knowledge/repos/registry';
import { createTestRepo, type TestRepo } from '../../../core/testing/gitRepo';
import { OllamaTestServer } from '../../../core/testing/ollamaTestServer';
import { META, P1, P2, SOLVE_FILES, solveResponder, TWO_PARTS } from '../../../core/testing/solveFixture';
import type { SolveRunSummary } from '../../../shared/contract';
import { runCra } from '../testing/cra';

let server: OllamaTestServer;
let repo: TestRepo;
let dataDir: string;
let metaFile: string;

const cra = (...args: string[]) => runCra(dataDir, args);
const userState = () => ({ status: repo.git('status', '--porcelain'), head: repo.git('rev-parse', 'HEAD') });

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  repo = createTestRepo({ prefix: 'cra-cli-solve-' });
  repo.writeFiles(SOLVE_FILES);
  repo.commit('tiny math');
  dataDir = mkdtempSync(join(tmpdir(), 'cra-cli-solve-data-'));
  const repoId = repoIdFor(realpathSync(repo.root));
  writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n[validation.${repoId}]\ntest = "node --test"\n`);
  metaFile = join(dataDir, 'meta.json');
  writeFileSync(metaFile, JSON.stringify(META));
  const indexed = spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, 'index', repo.root, '--json'], { encoding: 'utf8', timeout: 120_000 });
  expect(indexed.status, indexed.stderr).toBe(0);
}, 180_000);
afterAll(async () => {
  await server.close();
  repo.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('cra solve', () => {
  it("solves with a given meta-plan (no meta-plan pass); a repository's own config cannot set a validation command", async () => {
    const { respond, transcript } = solveResponder(TWO_PARTS);
    server.script.respond = respond;
    const marker = join(dataDir, 'repo-command-ran');
    repo.write('config.toml', `[validation.${repoIdFor(realpathSync(repo.root))}]\ntest = "touch ${marker}"\n`);
    const before = userState();
    const out = await cra('solve', 'Add mul and formatProduct', '--repo', repo.root, '--meta-plan', metaFile, '--json');
    expect(userState()).toEqual(before);
    repo.remove('config.toml');
    expect(out.status, out.stderr).toBe(0);
    expect(transcript.passes[0]).toBe('part_plan p1');
    expect(existsSync(marker)).toBe(false);
    const { run } = JSON.parse(out.stdout) as { run: { passes: Array<{ validation: { checks: Array<{ command?: string }> } | null }> } };
    expect(run.passes.flatMap((p) => p.validation?.checks.map((c) => c.command) ?? [])).toEqual(['node --test', 'node --test', 'node --test']);
  }, 120_000);

  it('prints the progress tree and the outcome; the working tree is untouched; cra logs --run shows its calls', async () => {
    const { respond, transcript } = solveResponder(TWO_PARTS);
    server.script.respond = respond;
    const chatCallsBefore = server.requests.filter((r) => r.path === '/api/chat').length;
    const before = userState();
    const out = await cra('solve', 'Add mul and formatProduct', '--repo', repo.root, '--meta-plan', metaFile);
    expect(out.status, out.stderr).toBe(0);
    expect(transcript.passes[0]).toBe('part_plan p1');
    expect(out.stdout).toContain('✓ Multiply\n  ✓ part plan\n  ✓ Add mul to lib/math.js and export it\n    ✓ implement\n    ✓ adjustment\n  ✓ Test mul in test/math.test.js\n    ✓ implement\n    ✓ adjustment\n✓ Format products\n');
    expect(out.stdout).toMatch(/Solve solve-\S+: complete\n {2}done {6}p1\/s1\n {2}done {6}p1\/s2\n {2}done {6}p2\/s1\n/);
    expect(userState()).toEqual(before);

    // cra logs --run <solve run>: the calls of all its passes (logged under <solve run>-p<n>).
    const solveRunId = /Solve run (\S+)/.exec(out.stderr)![1]!;
    const logged = await cra('logs', '--run', solveRunId, '--repo', repo.root, '--json', '--limit', '500');
    expect(logged.status, logged.stderr).toBe(0);
    const { calls } = JSON.parse(logged.stdout) as { calls: Array<{ runId: string }> };
    expect(calls.length).toBe(server.requests.filter((r) => r.path === '/api/chat').length - chatCallsBefore);
    expect(calls.every((c) => c.runId.startsWith(`${solveRunId}-p`))).toBe(true);
  }, 120_000);

  it('refuses --plan with --meta-plan, an empty task and an invalid plan file, naming the problem', async () => {
    expect((await cra('solve', 'x', '--repo', repo.root, '--plan', metaFile, '--meta-plan', metaFile)).stderr).toContain('--plan and --meta-plan are mutually exclusive');
    expect((await cra('solve', '--repo', repo.root)).stderr).toContain('Give the task');
    const bad = await cra('solve', 'x', '--repo', repo.root, '--plan', metaFile);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain(`${metaFile} is not a valid plan`);
  }, 60_000);

  it('implements a saved plan artifact with --plan (the task defaults to its summary); refuses an unknown run to resume and an unusable meta-plan before starting', async () => {
    const planFile = join(dataDir, 'artifact.json');
    const plan = { task_summary: 'Add mul to lib/math.js', affected_files: [{ path: 'lib/math.js', role: 'modify', changes: [{ symbol: 'mul', action: 'add', description: 'multiply', depends_on: [], depended_by: [] }] }], execution_order: ['lib/math.js'], rationale: 'one function' };
    writeFileSync(planFile, JSON.stringify({ id: 'p-1', repoId: 'x', task: 'mul', plan }));
    const { respond, transcript } = solveResponder({ edits: { 'plan/implement': TWO_PARTS.edits['p1/s1']! } });
    server.script.respond = respond;
    const out = await cra('solve', '--plan', planFile, '--repo', repo.root);
    expect(out.status, out.stderr).toBe(0);
    expect(transcript.passes).toEqual(['implement plan/implement #1']);
    expect(out.stdout).toMatch(/Solve solve-\S+: complete\n {2}done {6}plan\/implement\n/);

    const missing = await cra('solve', '--resume', 'solve-nope', '--repo', repo.root);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('No solve run solve-nope');
    const big = join(dataDir, 'big-meta.json');
    writeFileSync(big, JSON.stringify({ task_summary: 't', parts: Array.from({ length: 11 }, (_, i) => ({ id: `p${i}`, title: 't', description: 'd' })) }));
    const refused = await cra('solve', 'x', '--meta-plan', big, '--repo', repo.root);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('parts: 11 parts, at most 10 allowed ([orchestrator].max_parts)');
    expect(refused.stderr).not.toContain('Solve run');
  }, 120_000);

  it('a run that ends before its record exists prints no --resume hint (there is nothing to resume)', async () => {
    // The worktrees folder cannot be made (a file is in its way): the run fails before its record.
    const worktrees = join(dataDir, 'worktrees');
    rmSync(worktrees, { recursive: true, force: true });
    writeFileSync(worktrees, 'in the way\n');
    try {
      server.script.respond = solveResponder(TWO_PARTS).respond;
      const out = await cra('solve', 'Add mul and formatProduct', '--repo', repo.root, '--meta-plan', metaFile);
      expect(out.status).toBe(1);
      const solveRunId = /Solve run (\S+)/.exec(out.stderr)![1]!;
      expect(out.stderr).not.toContain('--resume');
      const resumed = await cra('solve', '--resume', solveRunId, '--repo', repo.root);
      expect(resumed.stderr).toContain(`No solve run ${solveRunId}`);
    } finally {
      rmSync(worktrees, { force: true });
    }
  }, 120_000);

  it('a run killed with SIGKILL leaves the working tree untouched and resumes from its last completed step', async () => {
    const first = solveResponder({ metaPlan: META, partPlans: { p1: P1, p2: P2 }, edits: TWO_PARTS.edits });
    // The first process hangs in the adjustment after p1/s1; it is killed there.
    server.script.respond = (prompt) => {
      const reply = first.respond(prompt);
      return first.transcript.passes.at(-1) === 'adjustment p1/s1' ? { ...reply, delayMs: 60_000 } : reply;
    };
    const before = userState();
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, 'solve', 'Add mul and formatProduct', '--repo', repo.root], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise((resolve) => child.on('close', resolve));
    for (let i = 0; i < 600 && first.transcript.passes.at(-1) !== 'adjustment p1/s1'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(first.transcript.passes).toEqual(['meta_plan', 'part_plan p1', 'implement p1/s1 #1', 'adjustment p1/s1']);
    child.kill('SIGKILL');
    await exited;
    const solveRunId = /Solve run (\S+)/.exec(stderr)![1]!;
    // The record existed when the process was killed: the hint was printed.
    expect(stderr).toContain(`If it stops, resume it with cra solve --resume ${solveRunId}\n`);
    expect(userState()).toEqual(before);

    const listed = await cra('solve', '--list', '--json', '--repo', repo.root);
    expect((JSON.parse(listed.stdout) as SolveRunSummary[]).find((r) => r.solveRunId === solveRunId)?.status).toBe('interrupted');

    const second = solveResponder(TWO_PARTS);
    server.script.respond = second.respond;
    const resumed = await cra('solve', '--resume', solveRunId, '--repo', repo.root, '--json');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(second.transcript.passes).toEqual(['adjustment p1/s1', 'implement p1/s2 #1', 'adjustment p1/s2', 'part_plan p2', 'implement p2/s1 #1', 'adjustment p2/s1']);
    const { outcome, run } = JSON.parse(resumed.stdout) as { outcome: { status: string }; run: { cumulativeDiff: string; passes: Array<{ type: string; status: string; error: string | null }> } };
    expect(outcome.status).toBe('complete');
    expect(run.cumulativeDiff).toContain('+function mul(a, b) {');
    // The pass the killed process was in is closed as interrupted.
    expect(run.passes.find((p) => p.type === 'adjustment')).toMatchObject({ status: 'failed', error: 'interrupted: the process running it stopped' });
    expect(userState()).toEqual(before);
    // The killed run's worktree was an orphan: removed when the next process started.
    expect(readdirSync(join(dataDir, 'worktrees')).filter((name) => name !== '.objects')).toEqual([]); // .objects: kept snapshot objects, not a checkout
  }, 180_000);
});
