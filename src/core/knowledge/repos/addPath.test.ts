import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostKind, RunInfo } from '../../../shared/contract';
import { createCore } from '../../app/createCore';
import { createTestRepo } from '../../testing/gitRepo';
import { writeSample } from '../../testing/sampleRepo';
import { validateRepoPath } from './service';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** An engine of the given host kind over a fresh data folder. */
function engine(host: HostKind, dataDir = mkdtempSync(join(tmpdir(), 'cra-test-'))) {
  const core = createCore({ host, dataDir });
  cleanups.push(async () => {
    await core.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { core, dataDir };
}

function repo(options: { git?: boolean } = {}) {
  const r = createTestRepo(options);
  cleanups.push(() => r.cleanup());
  if (options.git === false) r.write('main.py', 'def main():\n    return 1\n');
  else writeSample(r);
  return r;
}

describe('the path given to repos/add', () => {
  it('expands ~ to the home folder', () => {
    const home = mkdtempSync(join(tmpdir(), 'cra-home-'));
    mkdirSync(join(home, 'project'));
    const before = process.env.HOME;
    process.env.HOME = home;
    cleanups.push(() => {
      process.env.HOME = before;
      rmSync(home, { recursive: true, force: true });
    });
    expect(validateRepoPath('~/project', { allowRelative: false })).toBe(join(home, 'project'));
    expect(validateRepoPath('~', { allowRelative: false })).toBe(home);
  });

  it('refuses a relative path in the app with a message asking for an absolute one; the CLI takes it from its cwd', async () => {
    const r = repo();
    const rel = relative(process.cwd(), r.root);
    const app = engine('serve');
    await expect(app.core.handlers['repos/add']({ path: rel })).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('is a relative path; give the repository\'s absolute path'),
    });
    await expect(app.core.handlers['repos/find']({ path: rel })).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await app.core.handlers['repos/list']({})).toEqual([]);

    const cli = engine('cli');
    const { repo: added, runId } = await cli.core.handlers['repos/add']({ path: rel });
    expect(added.path).toBe(r.root);
    await cli.core.runs.wait(runId);
  });

  it('finds an already added folder by any spelling of its path, without starting a run', async () => {
    const r = repo();
    const { core } = engine('serve');
    expect(await core.handlers['repos/find']({ path: r.root })).toBeNull();
    const { repo: added, runId } = await core.handlers['repos/add']({ path: r.root });
    await core.runs.wait(runId);
    const runsBefore = core.runs.list().length;
    expect((await core.handlers['repos/find']({ path: `${r.root}/` }))?.id).toBe(added.id);
    expect((await core.handlers['repos/find']({ path: join(r.root, 'src', '..') }))?.id).toBe(added.id);
    expect(core.runs.list().length).toBe(runsBefore);
    await expect(core.handlers['repos/find']({ path: join(r.root, 'missing') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('what a repository says about itself', () => {
  it('records whether it is a git work tree, kept across a restart', async () => {
    const plain = repo({ git: false });
    const tracked = repo();
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-test-'));
    const first = createCore({ host: 'test', dataDir });
    const a = await first.handlers['repos/add']({ path: plain.root });
    const b = await first.handlers['repos/add']({ path: tracked.root });
    await first.runs.wait(a.runId);
    await first.runs.wait(b.runId);
    expect((await first.handlers['repos/get']({ repoId: a.repo.id })).git).toBe(false);
    expect((await first.handlers['repos/get']({ repoId: b.repo.id })).git).toBe(true);
    await first.dispose();
    const { core } = engine('test', dataDir);
    const listed = await core.handlers['repos/list']({});
    expect(Object.fromEntries(listed.map((x) => [x.id, x.git]))).toEqual({ [a.repo.id]: false, [b.repo.id]: true });
  });

  it('ties its index runs to it by id (run/started and run/list), not by the title', async () => {
    const r = repo();
    const { core } = engine('test');
    const started: RunInfo[] = [];
    core.events.on('run/started', (run) => started.push(run));
    const { repo: added, runId } = await core.handlers['repos/add']({ path: r.root });
    expect(started.find((s) => s.runId === runId)?.subject).toEqual({ repoId: added.id });
    expect(core.runs.list().find((s) => s.runId === runId)?.subject).toEqual({ repoId: added.id });
    await core.runs.wait(runId);
  });
});
