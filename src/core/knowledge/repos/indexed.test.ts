import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../app/createCore';
import { writeSample } from '../../testing/sampleRepo';
import { packageRoot } from '../../platform/paths';
import { createTestRepo } from '../../testing/gitRepo';
import { findIndexedRepo, notIndexed, unknownRepository } from './indexed';
import { repoPaths } from '../../platform/layout';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function engine(): { core: Core; dataDir: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-indexed-'));
  const core = createCore({ host: 'test', dataDir });
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), () => core.dispose());
  return { core, dataDir };
}

function cra(dataDir: string, ...args: string[]) {
  return spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** The error of every handler that reads one repository's index (the browser calls the same handlers). */
async function readErrors(core: Core, repoId: string): Promise<unknown[]> {
  const calls = [
    () => core.handlers['search/query']({ repoId, query: 'engine', limit: 5, mode: 'keyword' }),
    () => core.handlers['search/status']({ repoId }),
    () => core.handlers['search/embed']({ repoId }),
    () => core.handlers['repos/file']({ repoId, path: 'pkg/core.py', maxContentBytes: 100 }),
    () => core.handlers['repos/skipped']({ repoId }),
  ];
  return Promise.all(calls.map((call) => call().then(() => 'no error', (error: unknown) => error)));
}

describe('NOT_FOUND / NOT_INDEXED, decided in one place for the app, the browser and the CLI', () => {
  it('an unknown id is NOT_FOUND with one message from every handler', async () => {
    const { core } = engine();
    const expected = { code: 'NOT_FOUND', message: unknownRepository('nope').message };
    for (const error of await readErrors(core, 'nope')) expect(error).toMatchObject(expected);
    await expect(core.handlers['repos/get']({ repoId: 'nope' })).rejects.toMatchObject(expected);
  });

  it('a registered repository never indexed is NOT_INDEXED: the same code and message from the handlers and from `cra search` / `cra embed`', async () => {
    const { core, dataDir } = engine();
    const repo = createTestRepo();
    cleanups.push(() => repo.cleanup());
    writeSample(repo);
    const root = realpathSync(repo.root);
    const info = core.context.registry.add(root, false);
    const expected = notIndexed(root);
    expect(expected.message).toContain(`run \`cra index ${root}\``);
    for (const error of await readErrors(core, info.id)) expect(error).toMatchObject({ code: 'NOT_INDEXED', message: expected.message });
    expect(() => findIndexedRepo(dataDir, root)).toThrow(expect.objectContaining({ code: 'NOT_INDEXED', message: expected.message }));

    for (const args of [['search', 'engine', '--repo', root], ['embed', root]]) {
      const run = cra(dataDir, ...args);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(`cra: error: ${expected.message}\n`);
    }
  });

  it('an index removed after indexing is NOT_INDEXED for the app and the CLI, not a database error', async () => {
    const { core, dataDir } = engine();
    const repo = createTestRepo();
    cleanups.push(() => repo.cleanup());
    writeSample(repo);
    const { repo: info, runId } = await core.handlers['repos/add']({ path: realpathSync(repo.root), watch: false });
    await core.runs.wait(runId);
    await expect(core.handlers['search/query']({ repoId: info.id, query: 'engine', limit: 5, mode: 'keyword' })).resolves.toMatchObject({ mode: 'keyword' });

    rmSync(repoPaths(dataDir, info.id).dir, { recursive: true, force: true });
    const expected = { code: 'NOT_INDEXED', message: notIndexed(info.path).message };
    for (const error of await readErrors(core, info.id)) expect(error).toMatchObject(expected);
    expect(() => findIndexedRepo(dataDir, info.path)).toThrow(expect.objectContaining(expected));
  });

  it('by folder: a missing one is NOT_FOUND and an unregistered one NOT_INDEXED, in the CLI as in core', () => {
    const { dataDir } = engine();
    const missing = join(dataDir, 'no-such-repo');
    let failure: unknown;
    try {
      findIndexedRepo(dataDir, missing);
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ code: 'NOT_FOUND', message: `${missing} does not exist; give the folder of an indexed repository (--repo PATH).` });
    const run = cra(dataDir, 'search', 'engine', '--repo', missing);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`cra: error: ${(failure as Error).message}\n`);

    const unregistered = realpathSync(mkdtempSync(join(tmpdir(), 'cra-plain-')));
    cleanups.push(() => rmSync(unregistered, { recursive: true, force: true }));
    expect(() => findIndexedRepo(dataDir, unregistered)).toThrow(expect.objectContaining({ code: 'NOT_INDEXED', message: notIndexed(unregistered).message }));
  });
});
