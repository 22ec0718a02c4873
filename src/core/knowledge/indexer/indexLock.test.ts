import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunProgress } from '../../../shared/contract';
import { serializeError } from '../../../shared/contract';
import { createExtractor, type Extractor } from './extract/extractor';
import { indexRepository, WAITING_MESSAGE } from './indexer';
import { acquireIndexLock } from './indexLock';
import { createTestRepo } from '../../testing/gitRepo';
import { writeSample } from '../../testing/sampleRepo';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

let extractor: Promise<Extractor> | undefined;
const getExtractor = () => (extractor ??= createExtractor());

function setup() {
  const repo = createTestRepo();
  writeSample(repo);
  const dir = mkdtempSync(join(tmpdir(), 'cra-lock-'));
  cleanups.push(() => repo.cleanup(), () => rmSync(dir, { recursive: true, force: true }));
  return { root: repo.root, curatedFile: join(dir, 'curated.sqlite') };
}

/** A separate process holding the index lock of `curatedFile` (see testing/holdIndexLock.ts). */
async function lockHolder(curatedFile: string, mode?: 'release-on-stdin'): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', '..', 'testing', 'holdIndexLock.ts'), curatedFile, ...(mode ? [mode] : [])], { stdio: ['pipe', 'pipe', 'inherit'] });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => data.toString().includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

describe('one index run per repository at a time', () => {
  it('a second run of the same index waits for the first, says so, then succeeds', async () => {
    const { root, curatedFile } = setup();
    const progress: string[] = [];
    // Both start at once: the first takes the lock before the second asks for it.
    const first = indexRepository({ root, curatedFile, extractor: getExtractor });
    const second = indexRepository({ root, curatedFile, extractor: getExtractor, progress: (p) => progress.push(`${p.phase}: ${p.message ?? ''}`) });
    const [a, b] = await Promise.all([first, second]);
    expect(a.files).toBe(9);
    expect(b.files).toBe(9);
    expect(progress[0]).toBe(`waiting: ${WAITING_MESSAGE}`);
    expect(b.parsed).toBe(0); // it ran after the first one, on its finished index
    expect(Object.keys(b.phaseMs)[0]).toBe('waiting');
  });

  it('waits for another process holding the lock and goes on as soon as it is released', async () => {
    const { root, curatedFile } = setup();
    const holder = await lockHolder(curatedFile, 'release-on-stdin');
    const progress: Array<Omit<RunProgress, 'runId' | 'kind'>> = [];
    let waiting!: () => void;
    const sawWaiting = new Promise<void>((resolve) => (waiting = resolve));
    const run = indexRepository({
      root,
      curatedFile,
      extractor: getExtractor,
      progress: (p) => {
        progress.push(p);
        if (p.phase === 'waiting') waiting();
      },
    });
    await sawWaiting;
    expect(progress.map((p) => p.phase)).toEqual(['waiting']);
    holder.stdin!.end();
    expect((await run).files).toBe(9);
  });

  it('gives up after the wait it was given with DB_LOCKED and what to do, never INTERNAL', async () => {
    const { root, curatedFile } = setup();
    await lockHolder(curatedFile);
    const failure = await indexRepository({ root, curatedFile, extractor: getExtractor, lockWaitMs: 300 }).catch((error: unknown) => error);
    expect(serializeError(failure)).toMatchObject({ code: 'DB_LOCKED', retryable: true, message: expect.stringContaining('Another index of this repository is still running') });
    expect((failure as Error).message).toContain('Let it finish and run this again');
  });

  it('is not left stale by a holder killed with SIGKILL', async () => {
    const { root, curatedFile } = setup();
    const holder = await lockHolder(curatedFile);
    await expect(acquireIndexLock(curatedFile, { waitMs: 0 })).rejects.toMatchObject({ code: 'DB_LOCKED' });
    holder.kill('SIGKILL');
    await exited(holder);
    const summary = await indexRepository({ root, curatedFile, extractor: getExtractor, lockWaitMs: 0 });
    expect(summary.files).toBe(9);
  });

  it('stops waiting when the run is cancelled', async () => {
    const { root, curatedFile } = setup();
    await lockHolder(curatedFile);
    const controller = new AbortController();
    const run = indexRepository({ root, curatedFile, extractor: getExtractor, signal: controller.signal, progress: (p) => p.phase === 'waiting' && controller.abort() });
    await expect(run).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});
