import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../core/platform/db/open';
import { createTestRepo } from '../../../core/testing/gitRepo';
import { writeSample } from '../../../core/testing/sampleRepo';
import { packageRoot } from '../../../core/platform/paths';
import { registryFile } from '../../../core/platform/layout';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function cra(dataDir: string, ...args: string[]) {
  return spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** The registry row as another process sees it: status and owner, read without writing. */
function row(dataDir: string): { status: string; owner_pid: number | null } {
  const db = openDatabase(registryFile(dataDir), { readOnly: true });
  try {
    return db.prepare('select status, owner_pid from repos').get() as { status: string; owner_pid: number | null };
  } finally {
    db.close();
  }
}

/** An indexed sample repository and its data folder. */
function indexedRepo(): { root: string; dataDir: string } {
  const repo = createTestRepo();
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-owner-'));
  cleanups.push(() => repo.cleanup(), () => rmSync(dataDir, { recursive: true, force: true }));
  writeSample(repo);
  const first = cra(dataDir, 'index', repo.root, '--json');
  expect(first.status, first.stderr).toBe(0);
  return { root: repo.root, dataDir };
}

/** Start the held indexer (testing/heldIndex.ts) and resolve once it is held mid-run. */
function startHeldIndex(dataDir: string, root: string, release: string): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, '..', 'testing', 'heldIndex.ts'), dataDir, root, release], {
    cwd: packageRoot(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => child.kill());
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('HELD')) resolve({ child, output: () => out });
    });
    child.once('exit', (code) => reject(new Error(`the held indexer exited (${code}) before holding: ${err}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
}

describe('read-only commands and another process indexing', () => {
  it('cra search during an index in another process leaves that run "indexing", and the run completes', async () => {
    const { root, dataDir } = indexedRepo();
    const release = join(dataDir, 'release');
    const { child, output } = await startHeldIndex(dataDir, root, release);
    expect(row(dataDir)).toEqual({ status: 'indexing', owner_pid: child.pid });

    const search = cra(dataDir, 'search', 'greet', '--repo', root, '--json');
    expect(search.status, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    // The search neither reset the live run (as start-up crash recovery used to) nor took it over.
    expect(row(dataDir)).toEqual({ status: 'indexing', owner_pid: child.pid });

    writeFileSync(release, '');
    expect(await exited(child)).toBe(0);
    const summary = JSON.parse(output().trim().split('\n').pop()!) as { files: number };
    expect(summary.files).toBe(9);
    expect(row(dataDir)).toEqual({ status: 'ready', owner_pid: null });
  }, 120_000);

  it('an index run in another process is not reset by cra index of the same data folder either', async () => {
    const { root, dataDir } = indexedRepo();
    const other = createTestRepo();
    cleanups.push(() => other.cleanup());
    writeSample(other);
    const release = join(dataDir, 'release');
    const { child } = await startHeldIndex(dataDir, root, release);
    // `cra index` recovers abandoned runs at start: this one's process is alive, so it stays.
    const index = cra(dataDir, 'index', other.root, '--json');
    expect(index.status, index.stderr).toBe(0);
    const db = openDatabase(registryFile(dataDir), { readOnly: true });
    const held = db.prepare('select status, owner_pid from repos where path = ?').get(root);
    db.close();
    expect(held).toEqual({ status: 'indexing', owner_pid: child.pid });
    writeFileSync(release, '');
    expect(await exited(child)).toBe(0);
  }, 120_000);
});
