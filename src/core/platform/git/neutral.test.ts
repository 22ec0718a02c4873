import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../paths';
import { readRunBase, SolveWorkspace } from '../../features/plans/solveWorkspace';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { parseDrivers, withoutDrivers } from './neutral';
import { gitText, runGitSync } from './run';
import { Worktree } from './worktree';

let scratch: string;
let markers: string;
let repo: TestRepo;
let first: string;

/** `cra --data-dir DIR index REPO --json` as a real process (the CLI's own indexer). */
function craIndex(dataDir: string, root: string): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, 'index', root, '--json'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (status) => done({ status, stderr }));
  });
}

/** Markers the canary left: one file per configured command that ran. */
const fired = () => readdirSync(markers).sort();

/**
 * A repository that names a command everywhere git could run one: fsmonitor, filter (clean, smudge,
 * process; one driver name with `=`), textconv, external diff (per driver and global), merge
 * driver, signing program, its own hooks path and hooks.
 */
function hostileRepo(): TestRepo {
  const canary = join(scratch, 'canary.sh');
  writeFileSync(canary, `#!/bin/sh\nname=$1; shift\necho "$*" >> '${markers}'/"$name"\nif [ -f "$1" ]; then cat "$1"; else cat; fi\n`);
  chmodSync(canary, 0o755);
  const r = createTestRepo();
  r.writeFiles({ 'a.txt': 'one\n', 'b.md': 'doc\n', 'c.dat': 'data\n', 'd.eq': 'eq\n', 'src/m.py': 'x = 1\n', '.gitattributes': '*.txt filter=evil diff=evil merge=evil\n*.md diff=ext\n*.dat filter=proc\n*.eq filter=a=b\n' });
  first = r.commit('first', 1);
  const set = (key: string, value: string) => r.git('config', key, value);
  set('core.fsmonitor', `${canary} fsmonitor`);
  set('filter.evil.clean', `${canary} clean`);
  set('filter.evil.smudge', `${canary} smudge`);
  set('filter.evil.required', 'true');
  set('filter.proc.process', `${canary} process`);
  set('filter.a=b.clean', `${canary} clean-eq`);
  set('diff.evil.textconv', `${canary} textconv`);
  set('diff.ext.command', `${canary} diff-command`);
  set('diff.external', `${canary} diff-external`);
  set('merge.evil.driver', `${canary} merge %O %A %B`);
  set('commit.gpgSign', 'true');
  set('gpg.program', `${canary} gpg`);
  const hooks = join(scratch, 'hooks');
  mkdirSync(hooks, { recursive: true });
  set('core.hooksPath', hooks);
  for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'post-checkout', 'post-index-change', 'reference-transaction', 'pre-auto-gc']) {
    for (const dir of [hooks, join(r.root, '.git', 'hooks')]) {
      writeFileSync(join(dir, hook), `#!/bin/sh\n${canary} hook-${hook} </dev/null >/dev/null\n`);
      chmodSync(join(dir, hook), 0o755);
    }
  }
  return r;
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cra-neutral-'));
  markers = join(scratch, 'markers');
  mkdirSync(markers);
  repo = hostileRepo();
});
beforeEach(() => {
  rmSync(markers, { recursive: true, force: true });
  mkdirSync(markers);
});
afterAll(() => {
  repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe('git calls run no command of the repository', () => {
  it('the canary fires when git runs on its own (the fixture is live)', () => {
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    writeFileSync(join(repo.root, 'a.txt'), 'probe\n');
    execFileSync('git', ['diff'], { cwd: repo.root, env });
    execFileSync('git', ['diff', '--no-ext-diff'], { cwd: repo.root, env });
    execFileSync('git', ['hash-object', 'd.eq'], { cwd: repo.root, env });
    execFileSync('git', ['checkout', '--', 'a.txt'], { cwd: repo.root, env });
    expect(fired()).toEqual(expect.arrayContaining(['clean', 'clean-eq', 'diff-external', 'fsmonitor', 'smudge', 'textconv']));
  });

  it('cra index (a first and an incremental pass, as the watcher runs it) runs none', async () => {
    const dataDir = join(scratch, 'data-index');
    const full = await craIndex(dataDir, repo.root);
    expect(full.status, full.stderr).toBe(0);
    writeFileSync(join(repo.root, 'src', 'm.py'), 'x = 2\n');
    writeFileSync(join(repo.root, 'a.txt'), 'two\n');
    const again = await craIndex(dataDir, repo.root);
    expect(again.status, again.stderr).toBe(0);
    expect(fired()).toEqual([]);
  }, 120_000);

  it('diffs, logs, blame, hashing and status through runGit run none', async () => {
    writeFileSync(join(repo.root, 'a.txt'), 'three\n');
    writeFileSync(join(repo.root, 'b.md'), 'changed doc\n');
    const cwd = repo.root;
    expect(await gitText(['diff', 'HEAD'], { cwd })).toContain('+three');
    expect(await gitText(['diff'], { cwd })).toContain('+changed doc');
    await gitText(['log', '-p', '-1'], { cwd });
    await gitText(['show', 'HEAD'], { cwd });
    await gitText(['blame', 'a.txt'], { cwd });
    await gitText(['status', '--porcelain'], { cwd });
    await gitText(['hash-object', 'a.txt', 'c.dat', 'd.eq'], { cwd });
    runGitSync(['diff', 'HEAD'], { cwd });
    runGitSync(['add', '-A', '--dry-run'], { cwd });
    expect(fired()).toEqual([]);
  });

  it('worktrees, a solve workspace (uncommitted changes committed, resumed) and a merge run none', async () => {
    const root = join(scratch, 'data-solve', 'worktrees');
    const worktree = await Worktree.create({ repo: repo.root, commit: first, root, label: 'plan' });
    writeFileSync(join(worktree.path, 'a.txt'), 'edited\n');
    await worktree.checkout(runGitSync(['rev-parse', 'HEAD'], { cwd: repo.root }).trim());
    await worktree.remove();

    writeFileSync(join(repo.root, 'c.dat'), 'dirty\n');
    writeFileSync(join(repo.root, 'd.eq'), 'dirty\n');
    const base = await readRunBase(repo.root);
    const workspace = await SolveWorkspace.create({ repo: repo.root, root, base, includeUncommitted: true });
    writeFileSync(join(workspace.path, 'a.txt'), 'step\n');
    await gitText(['add', '-A'], { cwd: workspace.path });
    await workspace.commitStep('step');
    const diff = await workspace.cumulativeDiff();
    expect(diff).toContain('+step');
    const resumed = await SolveWorkspace.resume({ repo: repo.root, root, startCommit: workspace.startCommit, cumulativeDiff: diff });
    await resumed.remove();
    await workspace.remove();

    // A merge whose .txt conflict would go to merge.evil.driver.
    const clone = await Worktree.create({ repo: repo.root, commit: first, root, label: 'merge' });
    try {
      const env = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
      await gitText(['checkout', '-q', '-b', 'side'], { cwd: clone.path });
      writeFileSync(join(clone.path, 'a.txt'), 'side\n');
      await gitText(['commit', '-q', '-am', 'side'], { cwd: clone.path, env });
      await gitText(['checkout', '-q', '--detach', first], { cwd: clone.path });
      writeFileSync(join(clone.path, 'a.txt'), 'main\n');
      await gitText(['commit', '-q', '-am', 'main'], { cwd: clone.path, env });
      // The driver is configured in the clone as the user's repository configures it.
      await gitText(['config', 'merge.evil.driver', runGitSync(['config', 'merge.evil.driver'], { cwd: repo.root }).trim()], { cwd: clone.path });
      await gitText(['merge', '-q', '--no-edit', 'side'], { cwd: clone.path, env }).catch(() => undefined);
    } finally {
      await clone.remove();
    }
    expect(fired()).toEqual([]);
  }, 60_000);
});

describe('neutral', () => {
  it('puts --no-textconv --no-ext-diff after the subcommand of the diff family only', () => {
    expect(withoutDrivers(['-c', 'x=y', 'diff', 'HEAD'])).toEqual(['-c', 'x=y', 'diff', '--no-textconv', '--no-ext-diff', 'HEAD']);
    expect(withoutDrivers(['log', '-1'])).toEqual(['log', '--no-textconv', '--no-ext-diff', '-1']);
    expect(withoutDrivers(['status', '-z'])).toEqual(['status', '-z']);
  });

  it("reads every driver name (dots and '=' included) and the config files from git's listing", () => {
    const listing = 'file:.git/config\0core.bare\nfalse\0file:.git/config\0filter.a=b.c.clean\nx\0file:/abs/inc\0diff.evil.textconv\ny\0command line:\0core.fsmonitor\nfalse\0';
    expect(parseDrivers(listing, '/r')).toEqual({
      drivers: [
        { kind: 'filter', name: 'a=b.c' },
        { kind: 'diff', name: 'evil' },
      ],
      files: ['/r/.git/config', '/abs/inc'],
      cacheable: true,
    });
    expect(parseDrivers('', '/r').cacheable).toBe(false);
  });
});
