import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCore, type CoreOptions } from '../../app/createCore';
import { createTestRepo } from '../../testing/gitRepo';
import { openDatabase } from '../../platform/db/open';
import { processIsAlive, RepoRegistry } from './registry';
import { RepoWatcher } from './watcher';
import { registryFile } from '../../platform/layout';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (cleanups.length) await cleanups.pop()!();
});

/** A data folder whose registry holds one repository (indexed before, or not) left `indexing` by `pid` (null: no owner recorded). */
function leftIndexing(pid: number | null, indexedBefore = true): { dataDir: string; id: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-owner-'));
  const repo = createTestRepo();
  cleanups.push(() => repo.cleanup(), () => rmSync(dataDir, { recursive: true, force: true }));
  const registry = new RepoRegistry(dataDir);
  const { id } = registry.add(repo.root, true);
  if (indexedBefore) registry.update(id, { lastIndexedAt: new Date().toISOString() });
  registry.update(id, { status: 'indexing' });
  registry.close();
  // What a crashed (or live) process left behind: this test process wrote the row, so set the owner.
  const db = openDatabase(registryFile(dataDir));
  db.prepare('update repos set owner_pid = ? where id = ?').run(pid, id);
  db.close();
  return { dataDir, id };
}

/** The registry as an engine started now (with these options) leaves it. */
async function afterStart(dataDir: string, options?: CoreOptions): Promise<{ status: string; owner: number | null }> {
  const core = createCore({ host: 'test', dataDir }, options);
  await core.dispose();
  const registry = new RepoRegistry(dataDir);
  try {
    const [repo] = registry.list();
    return { status: repo!.status, owner: registry.indexOwner(repo!.id) };
  } finally {
    registry.close();
  }
}

/** The id of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(child.stdout);
  expect(processIsAlive(pid)).toBe(false);
  return pid;
}

describe('the owner of an index run', () => {
  it('is recorded with the `indexing` status and cleared by any other', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-owner-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const registry = new RepoRegistry(dataDir);
    cleanups.push(() => registry.close());
    const { id } = registry.add(dataDir, false);
    expect(registry.indexOwner(id)).toBeNull();
    registry.update(id, { status: 'indexing' });
    expect(registry.indexOwner(id)).toBe(process.pid);
    registry.update(id, { status: 'failed', error: { code: 'INTERNAL', message: 'x' } });
    expect(registry.indexOwner(id)).toBeNull();
  });

  it('crash recovery: a run left by a process that is gone goes back to ready (indexed before) or new', async () => {
    expect(await afterStart(leftIndexing(deadPid()).dataDir)).toEqual({ status: 'ready', owner: null });
    expect(await afterStart(leftIndexing(deadPid(), false).dataDir)).toEqual({ status: 'new', owner: null });
    // A row written before owners were recorded has none: recovered as before.
    expect(await afterStart(leftIndexing(null).dataDir)).toEqual({ status: 'ready', owner: null });
  });

  it('a run of a live process is left alone, even by an engine that recovers', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    cleanups.push(() => void child.kill());
    const { dataDir } = leftIndexing(child.pid!);
    expect(await afterStart(dataDir)).toEqual({ status: 'indexing', owner: child.pid });
  });

  it('a read-only engine (recoverStatuses: false) writes nothing, even for a dead owner', async () => {
    const pid = deadPid();
    expect(await afterStart(leftIndexing(pid).dataDir, { recoverStatuses: false })).toEqual({ status: 'indexing', owner: pid });
  });

  it('watch: false starts no watcher for a watched repository; the default does', async () => {
    const start = vi.spyOn(RepoWatcher.prototype, 'start');
    const { dataDir } = leftIndexing(null);
    await afterStart(dataDir, { watch: false, recoverStatuses: false });
    expect(start).not.toHaveBeenCalled();
    await afterStart(dataDir);
    expect(start).toHaveBeenCalledTimes(1);
  });
});
