import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gitListFiles, gitLog } from '../../knowledge/indexer/git';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { GitError, gitText, runGit, runGitSync } from './run';
import { Worktree } from './worktree';

let scratch: string;
let repo: TestRepo;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cra-gitrun-'));
  repo = createTestRepo();
  repo.writeFiles({ 'naïve.py': 'x = 1\n', 'b.py': 'y = 1\n' });
  repo.commit('Café: initial', 1);
  repo.writeFiles({ 'naïve.py': 'x = 2\n', 'b.py': 'y = 2\n' });
  repo.commit('Zweite Änderung', 2);
});
afterAll(() => {
  repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** Set variables for one test; afterEach puts the old values back. */
const saved = new Map<string, string | undefined>();
function setEnv(values: Record<string, string>): void {
  for (const [key, value] of Object.entries(values)) {
    if (!saved.has(key)) saved.set(key, process.env[key]);
    process.env[key] = value;
  }
}
afterEach(() => {
  for (const [key, value] of saved) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  saved.clear();
});

describe('the git runner', () => {
  it("reads the same output under a hostile user config and leaked GIT_* variables, and runs none of the user's programs", async () => {
    const home = join(scratch, 'home');
    const markers = join(scratch, 'markers');
    const hooks = join(scratch, 'hooks');
    mkdirSync(join(home, '.config', 'git'), { recursive: true });
    mkdirSync(markers, { recursive: true });
    mkdirSync(hooks, { recursive: true });
    const script = (name: string) => {
      const file = join(scratch, `${name}.sh`);
      writeFileSync(file, `#!/bin/sh\ntouch ${join(markers, name)}\necho HOSTILE\n`);
      chmodSync(file, 0o755);
      return file;
    };
    writeFileSync(join(hooks, 'post-checkout'), `#!/bin/sh\ntouch ${join(markers, 'hook')}\n`);
    chmodSync(join(hooks, 'post-checkout'), 0o755);
    const config = [
      '[core]',
      '  quotepath = true',
      `  pager = ${script('pager')}`,
      `  hooksPath = ${hooks}`,
      '[log]',
      '  showSignature = true',
      '  showRoot = false',
      '[i18n]',
      '  logOutputEncoding = ISO-8859-1',
      '[diff]',
      `  external = ${script('diff')}`,
      '[color]',
      '  ui = always',
      '',
    ].join('\n');
    writeFileSync(join(home, '.gitconfig'), config);
    writeFileSync(join(home, '.config', 'git', 'config'), config);
    const other = createTestRepo();
    other.commit('another repository');
    setEnv({
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
      // What a git hook running our tests would leak: another repository's folders.
      GIT_DIR: join(other.root, '.git'),
      GIT_WORK_TREE: other.root,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.quotepath',
      GIT_CONFIG_VALUE_0: 'true',
    });
    try {
      const commits = await gitLog(repo.root, { maxCount: 10 });
      expect(commits.map((c) => c.message)).toEqual(['Zweite Änderung', 'Café: initial']);
      expect(commits.map((c) => c.files)).toEqual([
        ['b.py', 'naïve.py'],
        ['b.py', 'naïve.py'],
      ]);
      expect((await gitListFiles(repo.root)).files).toEqual(['b.py', 'naïve.py']);
      const diff = await gitText(['diff', 'HEAD~1', 'HEAD'], { cwd: repo.root });
      expect(diff).toContain('diff --git a/b.py b/b.py');
      expect(diff).toContain('+y = 2');
      expect(diff).not.toContain('HOSTILE');
      expect(diff).not.toContain('\x1b[');
      const worktree = await Worktree.create({ repo: repo.root, commit: 'HEAD~1', root: join(scratch, 'worktrees') });
      await worktree.checkout(runGitSync(['rev-parse', 'HEAD'], { cwd: repo.root }).trim());
      await worktree.remove();
      expect(runGitSync(['log', '-1', '--format=%s'], { cwd: repo.root })).toBe('Zweite Änderung\n');
    } finally {
      other.cleanup();
    }
    expect(existsSync(join(markers, 'pager'))).toBe(false);
    expect(existsSync(join(markers, 'diff'))).toBe(false);
    expect(existsSync(join(markers, 'hook'))).toBe(false);
  });

  it('passes stdin and returns stdout as bytes', async () => {
    const out = await runGit(['hash-object', '--stdin'], { cwd: repo.root, input: 'hello\n' });
    expect(out.toString('utf8').trim()).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
  });

  it('says when git is not installed', async () => {
    setEnv({ PATH: join(scratch, 'no-programs-here') });
    const error = await runGit(['--version'], { cwd: repo.root }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect(error).toMatchObject({ failure: 'missing', code: 'UNSUPPORTED', message: expect.stringMatching(/git is not installed.*install git/) });
  });

  it('tells a folder outside git, a missing folder, a failed command, a cancel and too much output apart', async () => {
    const plain = join(scratch, 'plain');
    mkdirSync(plain, { recursive: true });
    await expect(gitText(['rev-parse', 'HEAD'], { cwd: plain })).rejects.toMatchObject({ failure: 'not-a-repository', code: 'VALIDATION', message: `${plain} is not a git repository; give the path of a folder with a .git.` });
    expect(() => runGitSync(['rev-parse', 'HEAD'], { cwd: plain })).toThrow(/is not a git repository/);
    await expect(gitText(['status'], { cwd: join(scratch, 'missing') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(gitText(['rev-parse', '--verify', 'no-such-branch'], { cwd: repo.root })).rejects.toMatchObject({ failure: 'failed', code: 'INTERNAL', message: expect.stringMatching(/^git rev-parse --verify no-such-branch failed \(128\): fatal: Needed a single revision/) });
    const controller = new AbortController();
    controller.abort();
    await expect(gitText(['log'], { cwd: repo.root, signal: controller.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect(gitText(['log'], { cwd: repo.root, maxBuffer: 10 })).rejects.toMatchObject({ failure: 'output-too-large' });
  });
});
