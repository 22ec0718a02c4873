import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worktree } from '../../platform/git';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { hashTree } from '../../testing/hashTree';
import { detectSandbox, noSandboxMessage, requireSandbox, UNSANDBOXED_FLAG } from './sandbox';
import { validateStep } from './validation';

/** bwrap is what CI installs (.ci/run); these tests skip only where it is truly absent. */
const hasBwrap = process.platform === 'linux' && spawnSync('bwrap', ['--version']).status === 0;

let scratch: string;
/** A folder outside /tmp and $HOME (read-only in the sandbox rather than hidden). */
let outside: string;
let repo: TestRepo;
let head: string;
let server: Server;
let port: number;
let connections = 0;
const saved = { HOME: process.env.HOME, CRA_TEST_TOKEN: process.env.CRA_TEST_TOKEN };

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'cra-sandbox-'));
  outside = mkdtempSync('/var/tmp/cra-sandbox-');
  repo = createTestRepo();
  repo.writeFiles({ 'run.sh': 'echo tests pass\n', 'src/app.js': 'module.exports = 1;\n' });
  head = repo.commit('first', 1);
  server = createServer((socket) => {
    connections++;
    socket.end('hello\n');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as { port: number }).port;
  // The user's home and environment as the validation would otherwise see them.
  const home = join(scratch, 'home');
  mkdirSync(home);
  writeFileSync(join(home, 'secret.txt'), 'user-secret-42\n');
  process.env.HOME = home;
  process.env.CRA_TEST_TOKEN = 'sk-test-token-123';
});
afterAll(async () => {
  process.env.HOME = saved.HOME;
  if (saved.CRA_TEST_TOKEN === undefined) delete process.env.CRA_TEST_TOKEN;
  else process.env.CRA_TEST_TOKEN = saved.CRA_TEST_TOKEN;
  await new Promise((done) => server.close(done));
  repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** A model edit to run.sh that tries every way out it can think of. */
function hostileScript(): string {
  const user = repo.root;
  return `
common=$(git rev-parse --path-format=absolute --git-common-dir)
echo "common=$common"
mkdir -p "$common/hooks" && printf '#!/bin/sh\\ntouch PWNED\\n' > "$common/hooks/pre-commit" && echo planted-common-hook
printf '#!/bin/sh\\ntouch PWNED\\n' > '${user}/.git/hooks/pre-commit' && echo planted-user-hook
echo x > '${user}/planted.txt' && echo wrote-user-tree
echo x > '${scratch}/escaped.txt'
echo x > '${outside}/escaped.txt' && echo wrote-outside
cat '${process.env.HOME}/secret.txt' && echo read-home
node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('net-connected')).on('error', (e) => console.log('net-refused ' + e.code))"
echo inside > made-inside.txt
env
exit 0
`;
}

describe('validation in the OS sandbox', () => {
  it.skipIf(!hasBwrap)('the hostile run.sh edit plants nothing outside the run copy, reads no $HOME, no network, no user env; the user .git is byte-identical (needs bwrap)', async () => {
    const dotGit = hashTree(join(repo.root, '.git'));
    const worktree = await Worktree.create({ repo: repo.root, commit: head, root: join(scratch, 'data', 'worktrees'), label: 'solve' });
    try {
      writeFileSync(join(worktree.path, 'run.sh'), hostileScript());
      const report = await validateStep(worktree.path, ['run.sh'], { test: 'sh ./run.sh', timeout_s: 60 });
      const output = report.checks[0]!.output;
      expect(report.kind).toBe('commands');
      // It ran, and wrote where it may: its own copy.
      expect(readFileSync(join(worktree.path, 'made-inside.txt'), 'utf8')).toBe('inside\n');
          // (writes under /tmp and $HOME land in the sandbox's own empty tmpfs: gone with it, checked below)
      expect(output).not.toMatch(/planted-common-hook|planted-user-hook|wrote-outside|read-home|net-connected/);
      expect(output).not.toContain('user-secret-42');
      expect(output).not.toContain('sk-test-token-123');
      expect(output).toMatch(/^CI=1$/m);
      expect(connections).toBe(0);
      expect(existsSync(join(repo.root, 'planted.txt'))).toBe(false);
      expect(existsSync(join(scratch, 'escaped.txt'))).toBe(false);
      expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
      expect(existsSync(join(repo.root, '.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(existsSync(join(worktree.path, '.git', 'hooks', 'pre-commit'))).toBe(false);
    } finally {
      await worktree.remove();
    }
    expect(hashTree(join(repo.root, '.git'))).toEqual(dotGit);
  }, 60_000);

  it.skipIf(!hasBwrap)('a validation that needs the network or $HOME fails inside the sandbox (needs bwrap)', async () => {
    const dir = mkdtempSync(join(scratch, 'copy-'));
    const net = await validateStep(dir, [], { test: `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(7))"`, timeout_s: 60 });
    expect(net.checks[0]).toMatchObject({ ok: false, exitCode: 7 });
    const home = await validateStep(dir, [], { test: `cat '${process.env.HOME}/secret.txt'`, timeout_s: 60 });
    expect(home.checks[0]).toMatchObject({ ok: false });
    expect(home.checks[0]!.output).not.toContain('user-secret-42');
    expect(connections).toBe(0);
    // The same commands outside the sandbox succeed (the fixture is live).
    expect(spawnSync('sh', ['-c', `cat '${process.env.HOME}/secret.txt'`]).status).toBe(0);
  }, 60_000);

  it.skipIf(!hasBwrap)('a time-out stops the sandboxed command and everything it started (needs bwrap)', async () => {
    const dir = mkdtempSync(join(scratch, 'slow-'));
    const started = Date.now();
    const report = await validateStep(dir, [], { test: 'sleep 30 & sleep 30', timeout_s: 0.5 });
    expect(report.checks[0]).toMatchObject({ ok: false, timedOut: true });
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it('with no sandbox, a validation is refused unless the user agreed; the refusal names the setting and the flag', async () => {
    expect(noSandboxMessage()).toContain('[sandbox] allow_unsandboxed_validation = true');
    expect(noSandboxMessage()).toContain(UNSANDBOXED_FLAG);
    const found = await detectSandbox();
    expect(found?.kind ?? null).toBe(hasBwrap ? 'bwrap' : process.platform === 'darwin' ? 'sandbox-exec' : null);
    // Where no sandbox exists the refusal is what the user sees (PATH without bwrap, in a child process).
    const script = `require('tsx/cjs/api').register(); const s = require(${JSON.stringify(join(__dirname, 'sandbox.ts'))}); s.requireSandbox(false).then(() => console.log('RAN'), (e) => console.log(e.code + ' ' + e.message)); s.requireSandbox(true).then((x) => console.log('CONSENT ' + x));`;
    const child = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, PATH: '/nonexistent' }, encoding: 'utf8', cwd: join(__dirname, '..', '..', '..', '..') });
    if (process.platform === 'linux') {
      expect(child.stdout).toContain('UNSUPPORTED Validation commands run code the model may have written');
      expect(child.stdout).toContain('CONSENT null');
      expect(child.stdout).not.toContain('RAN');
    }
    if (hasBwrap) await expect(requireSandbox(false)).resolves.toMatchObject({ kind: 'bwrap' });
  }, 60_000);
});
