import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexSummary, RepoInfo } from '../../../shared/contract';
import { createTempCore } from '../../testing/tempCore';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { writeSample } from '../../testing/sampleRepo';
import { repoIdFor } from './registry';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function env() {
  const temp = createTempCore();
  cleanups.push(temp.cleanup);
  return temp;
}

function sampleRepo(): TestRepo {
  const repo = createTestRepo();
  cleanups.push(() => repo.cleanup());
  writeSample(repo);
  return repo;
}

describe('the repos domain', () => {
  it('rejects bad paths with a clear error and writes no state', async () => {
    const { core, dataDir } = env();
    const repo = createTestRepo();
    cleanups.push(() => repo.cleanup());
    repo.write('file.txt', 'x');
    await expect(core.handlers['repos/add']({ path: join(repo.root, 'missing') })).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('No folder at') });
    await expect(core.handlers['repos/add']({ path: join(repo.root, 'file.txt') })).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringContaining('not a folder') });
    expect(await core.handlers['repos/list']({})).toEqual([]);
    expect(existsSync(join(dataDir, 'repos'))).toBe(false);
  });

  it.skipIf(process.getuid?.() === 0)('rejects an unreadable folder (skipped as root: root reads everything)', async () => {
    const { core } = env();
    const repo = createTestRepo();
    cleanups.push(() => repo.cleanup());
    const { chmodSync } = await import('node:fs');
    chmodSync(repo.root, 0o000);
    cleanups.push(() => chmodSync(repo.root, 0o755));
    await expect(core.handlers['repos/add']({ path: repo.root })).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('adds, indexes, describes, views a file, re-indexes and removes a repository', async () => {
    const { core, dataDir } = env();
    const repo = sampleRepo();
    const changes: RepoInfo[] = [];
    core.events.on('repos/changed', (r) => changes.push(r));
    const phases = new Set<string>();
    core.events.on('run/progress', (p) => phases.add(p.phase));

    const { repo: added, runId } = await core.handlers['repos/add']({ path: repo.root });
    expect(added.id).toBe(repoIdFor(repo.root));
    const summary = (await core.runs.wait(runId)) as IndexSummary;
    expect(summary.files).toBe(9);
    expect([...phases]).toEqual(['scanning', 'parsing', 'references', 'git history', 'search index', 'saving']);
    expect(changes.map((c) => c.status)).toEqual(['new', 'indexing', 'ready']);

    const info = await core.handlers['repos/get']({ repoId: added.id });
    expect(info).toMatchObject({ status: 'ready', watching: false, stats: { files: 9, commits: 3, languages: { python: 5, typescript: 3, markdown: 1 } } });
    expect(info.lastIndexedAt).not.toBeNull();
    expect((await core.handlers['repos/skipped']({ repoId: added.id })).map((s) => s.reason)).toEqual(['binary', 'oversize', 'minified']);

    const view = await core.handlers['repos/file']({ repoId: added.id, path: 'pkg/core.py', maxContentBytes: 40 });
    expect(view.symbols.map((s) => s.qualifiedName)).toEqual(['Base', 'Base.run', 'Engine', 'Engine.start', 'Engine.stop']);
    expect(view.imports).toEqual(['pkg/util.py']);
    expect(view.importedBy).toEqual(expect.arrayContaining(['pkg/__init__.py', 'tests/test_core.py']));
    expect(view.coChanges[0]).toEqual({ path: 'pkg/util.py', count: 3 });
    expect(view.commits.map((c) => c.message)).toEqual(['tune again', 'tune constant', 'initial']);
    expect(view.tests).toEqual(['tests/test_core.py']);
    expect(view.content).toBe('"""Core engine."""\nimport os\nfrom pkg.ut');
    expect(view.contentTruncated).toBe(true);
    await expect(core.handlers['repos/file']({ repoId: added.id, path: '../outside.py', maxContentBytes: 10 })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    // Adding the same path again re-indexes it (nothing changed: nothing parsed).
    const again = await core.handlers['repos/add']({ path: repo.root });
    expect(again.repo.id).toBe(added.id);
    expect(((await core.runs.wait(again.runId)) as IndexSummary).parsed).toBe(0);
    const full = await core.handlers['repos/reindex']({ repoId: added.id, full: true });
    expect(((await core.runs.wait(full.runId)) as IndexSummary).parsed).toBe(9); // 12 files, 3 of them skipped (recorded, not parsed)

    expect(await core.handlers['repos/remove']({ repoId: added.id })).toEqual({ removed: true });
    expect(await core.handlers['repos/list']({})).toEqual([]);
    expect(readdirSync(join(dataDir, 'repos'))).toEqual([]);
    expect(existsSync(join(repo.root, 'pkg', 'core.py'))).toBe(true);
    await expect(core.handlers['repos/get']({ repoId: added.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('marks a cancelled first index as new and keeps the registry usable', async () => {
    const { core } = env();
    const repo = sampleRepo();
    const { repo: added, runId } = await core.handlers['repos/add']({ path: repo.root });
    expect((await core.handlers['run/cancel']({ runId })).cancelled).toBe(true);
    await expect(core.runs.wait(runId)).rejects.toMatchObject({ code: 'CANCELLED' });
    expect((await core.handlers['repos/get']({ repoId: added.id })).status).toBe('new');
  });

  it('re-indexes saved files when the watcher is on', async () => {
    const { core } = env();
    const repo = sampleRepo();
    const { repo: added, runId } = await core.handlers['repos/add']({ path: repo.root, watch: true });
    await core.runs.wait(runId);
    expect((await core.handlers['repos/get']({ repoId: added.id })).watching).toBe(true);
    const finished = new Promise<IndexSummary>((resolve) => {
      core.events.on('run/finished', (f) => {
        if (f.kind === 'index' && f.status === 'done') resolve(f.result as IndexSummary);
      });
    });
    writeFileSync(join(repo.root, 'pkg', 'watched.py'), 'def watched_function():\n    return 1\n');
    const result = await finished;
    expect(result.parsed).toBeGreaterThanOrEqual(1);
    const view = await core.handlers['repos/file']({ repoId: added.id, path: 'pkg/watched.py', maxContentBytes: 1000 });
    expect(view.symbols.map((s) => s.name)).toEqual(['watched_function']);
    const off = await core.handlers['repos/watch']({ repoId: added.id, enabled: false });
    expect(off.watching).toBe(false);
  });
});
