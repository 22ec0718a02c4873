import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCore } from '../../app/createCore';
import { packageRoot } from '../paths';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { hashTree } from '../../testing/hashTree';
import { runGitSync } from './run';
import { cleanupOrphanWorktrees, listWorktrees, Worktree } from './worktree';
import { worktreesDir } from '../layout';

let scratch: string;
let repo: TestRepo;
let first: string;
let second: string;

/** The checkouts git knows for the fixture repository. */
const gitWorktrees = () =>
  runGitSync(['worktree', 'list', '--porcelain'], { cwd: repo.root })
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cra-worktree-'));
  repo = createTestRepo();
  repo.write('a.txt', 'one\n');
  first = repo.commit('first', 1);
  repo.write('a.txt', 'two\n');
  repo.write('b.txt', 'new\n');
  second = repo.commit('second', 2);
});
afterAll(() => {
  repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe('Worktree', () => {
  it("is created detached at a commit outside the repository, as a repository of its own that borrows the user's objects, moves, and is removed", async () => {
    const root = join(scratch, 'data', 'worktrees');
    const status = repo.git('status', '--porcelain');
    const dotGit = hashTree(join(repo.root, '.git'));
    const worktree = await Worktree.create({ repo: repo.root, commit: first, root, label: 'plan' });
    expect(worktree.path.startsWith(root)).toBe(true);
    expect(worktree.head).toBe(first);
    expect(readFileSync(join(worktree.path, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(worktree.path, 'b.txt'))).toBe(false);
    // Detached: no branch is checked out (and none was made in the user's repository).
    expect(runGitSync(['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: worktree.path }).trim()).toBe('HEAD');
    expect(repo.git('branch', '--list').trim()).toBe('* main');
    // Its own .git in our folder (not a linked worktree of the user's .git), objects borrowed read-only.
    expect(runGitSync(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: worktree.path }).trim()).toBe(join(worktree.path, '.git'));
    expect(readFileSync(join(worktree.path, '.git', 'objects', 'info', 'alternates'), 'utf8')).toContain(join(repo.root, '.git', 'objects'));
    expect(runGitSync(['config', 'gc.auto'], { cwd: worktree.path }).trim()).toBe('0');
    expect(gitWorktrees()).toEqual([repo.root]);
    expect(listWorktrees(root)).toEqual([expect.objectContaining({ path: worktree.path, repo: repo.root, label: 'plan', alive: true })]);

    writeFileSync(join(worktree.path, 'scratch.txt'), 'left by a step\n');
    await worktree.checkout(second);
    expect(worktree.head).toBe(second);
    expect(readFileSync(join(worktree.path, 'a.txt'), 'utf8')).toBe('two\n');
    expect(existsSync(join(worktree.path, 'b.txt'))).toBe(true);
    expect(existsSync(join(worktree.path, 'scratch.txt'))).toBe(false);

    // A commit made in the checkout lands in its own objects; kept, it stays readable from the user's repository.
    writeFileSync(join(worktree.path, 'a.txt'), 'made here\n');
    runGitSync(['commit', '-q', '-am', 'here'], { cwd: worktree.path, env: { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    const made = runGitSync(['rev-parse', 'HEAD'], { cwd: worktree.path }).trim();
    worktree.keep();

    await worktree.remove();
    await worktree.remove();
    expect(existsSync(worktree.path)).toBe(false);
    expect(listWorktrees(root)).toEqual([]);
    expect(repo.git('status', '--porcelain')).toBe(status);
    expect(repo.git('rev-parse', 'HEAD').trim()).toBe(second);
    expect(hashTree(join(repo.root, '.git'))).toEqual(dotGit);
    expect(runGitSync(['show', `${made}:a.txt`], { cwd: repo.root })).toBe('made here\n');
    const again = await Worktree.create({ repo: repo.root, commit: made, root, label: 'resume' });
    expect(readFileSync(join(again.path, 'a.txt'), 'utf8')).toBe('made here\n');
    await again.remove();
  });

  it('refuses a folder inside the repository and a revision that is not a commit', async () => {
    await expect(Worktree.create({ repo: repo.root, commit: first, root: join(repo.root, 'tmp') })).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringMatching(/inside the repository/) });
    await expect(Worktree.create({ repo: repo.root, commit: 'f'.repeat(40), root: join(scratch, 'refused') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(listWorktrees(join(scratch, 'refused'))).toEqual([]);
  });

  it('removes itself when its signal aborts', async () => {
    const root = join(scratch, 'aborted');
    const controller = new AbortController();
    const worktree = await Worktree.create({ repo: repo.root, commit: first, root, signal: controller.signal });
    expect(existsSync(worktree.path)).toBe(true);
    controller.abort();
    await vi.waitFor(() => expect(listWorktrees(root)).toEqual([]), { timeout: 20_000, interval: 50 });
    expect(existsSync(worktree.path)).toBe(false);
    await expect(worktree.checkout(second)).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it("leaves an orphan when its process is killed, which the engine's start-up removes (a live one stays)", async () => {
    const dataDir = join(scratch, 'crash-data');
    const root = worktreesDir(dataDir);
    const module = join(__dirname, 'worktree.ts');
    const code = `
      const { Worktree } = require(${JSON.stringify(module)});
      Worktree.create({ repo: ${JSON.stringify(repo.root)}, commit: ${JSON.stringify(first)}, root: ${JSON.stringify(root)}, label: 'solve' })
        .then((w) => { console.log('READY ' + w.path); setInterval(() => undefined, 1000); });`;
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', code], { cwd: packageRoot(), stdio: ['ignore', 'pipe', 'inherit'] });
    const orphan = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const match = /READY (.+)\n/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`the child exited (${code}) before making its worktree: ${out}`)));
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(existsSync(orphan)).toBe(true);
    const live = await Worktree.create({ repo: repo.root, commit: second, root, label: 'live' });
    try {
      expect(listWorktrees(root).map((w) => [w.path, w.alive]).sort()).toEqual([[live.path, true], [orphan, false]].sort());

      const core = createCore({ host: 'cli', dataDir });
      await core.dispose();

      expect(existsSync(orphan)).toBe(false);
      expect(existsSync(live.path)).toBe(true);
      expect(listWorktrees(root).map((w) => w.path)).toEqual([live.path]);
      expect(await cleanupOrphanWorktrees(root)).toEqual([]);
    } finally {
      await live.remove();
    }
    expect(gitWorktrees()).toEqual([repo.root]);
  });
});
