import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexSummary, RunProgress } from '../../../shared/contract';
import { createCore, type Core } from '../../app/createCore';
import { WAITING_MESSAGE } from '../indexer/indexer';
import { acquireIndexLock } from '../indexer/indexLock';
import { createTestRepo } from '../../testing/gitRepo';
import { writeSample } from '../../testing/sampleRepo';
import { repoIdFor } from './registry';
import { repoPaths } from '../../platform/layout';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Two engines over one data folder (the app and the CLI), and a sample repository. */
function twoEngines(): { a: Core; b: Core; dataDir: string; root: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-two-'));
  const repo = createTestRepo();
  writeSample(repo);
  const a = createCore({ host: 'test', dataDir });
  const b = createCore({ host: 'test', dataDir });
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), () => repo.cleanup(), () => a.dispose(), () => b.dispose());
  return { a, b, dataDir, root: repo.root };
}

function progressOf(core: Core): RunProgress[] {
  const seen: RunProgress[] = [];
  core.events.on('run/progress', (p) => seen.push(p));
  return seen;
}

describe('two engines indexing one repository', () => {
  it('an engine waits (saying so) while another holds the index, and then succeeds; two waiting engines both finish', async () => {
    const { a, b, dataDir, root } = twoEngines();
    const seenA = progressOf(a);
    const seenB = progressOf(b);
    // Another index of the repository is running: it holds the lock until the test releases it, so
    // both engines meet it whatever the timing.
    const held = await acquireIndexLock(repoPaths(dataDir, repoIdFor(root)).curated, { waitMs: 0 });
    cleanups.push(() => held.release());
    const waiting = (seen: RunProgress[]) => seen.some((p) => p.phase === 'waiting' && p.message === WAITING_MESSAGE);
    const bothWaiting = new Promise<void>((resolve) => {
      const check = () => (waiting(seenA) && waiting(seenB) ? resolve() : undefined);
      a.events.on('run/progress', check);
      b.events.on('run/progress', check);
    });
    const first = await a.handlers['repos/add']({ path: root, watch: false });
    const second = await b.handlers['repos/add']({ path: root, watch: false });
    expect(second.repo.id).toBe(first.repo.id);
    await bothWaiting;
    held.release();
    const [sa, sb] = (await Promise.all([a.runs.wait(first.runId), b.runs.wait(second.runId)])) as [IndexSummary, IndexSummary];
    expect(sa.files).toBe(9);
    expect(sb.files).toBe(9);
    expect((await b.handlers['repos/get']({ repoId: first.repo.id })).status).toBe('ready');
  });

  it('gives up with DB_LOCKED and advice after CRA_INDEX_LOCK_WAIT_S, and records it on the repository', async () => {
    const { a, dataDir, root } = twoEngines();
    const previous = process.env.CRA_INDEX_LOCK_WAIT_S;
    process.env.CRA_INDEX_LOCK_WAIT_S = '0.3';
    cleanups.push(() => {
      if (previous === undefined) delete process.env.CRA_INDEX_LOCK_WAIT_S;
      else process.env.CRA_INDEX_LOCK_WAIT_S = previous;
    });
    // Another index (here: this test) holds the repository's lock.
    const held = await acquireIndexLock(repoPaths(dataDir, repoIdFor(root)).curated, { waitMs: 0 });
    cleanups.push(() => held.release());
    const { repo, runId } = await a.handlers['repos/add']({ path: root, watch: false });
    await expect(a.runs.wait(runId)).rejects.toMatchObject({ code: 'DB_LOCKED', message: expect.stringContaining('Let it finish and run this again') });
    expect((await a.handlers['repos/get']({ repoId: repo.id })).error).toMatchObject({ code: 'DB_LOCKED' });
  });
});
