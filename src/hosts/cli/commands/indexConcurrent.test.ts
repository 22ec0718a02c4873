import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/platform/paths';
import { repoIdFor } from '../../../core/knowledge/repos/registry';
import { createTestRepo } from '../../../core/testing/gitRepo';
import { writeSample } from '../../../core/testing/sampleRepo';
import { repoPaths } from '../../../core/platform/layout';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

const craArgs = (dataDir: string, ...args: string[]) => [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, ...args];

function setup() {
  const repo = createTestRepo();
  writeSample(repo);
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-cli-lock-'));
  cleanups.push(() => repo.cleanup(), () => rmSync(dataDir, { recursive: true, force: true }));
  const root = realpathSync(repo.root);
  return { root, dataDir, curated: repoPaths(dataDir, repoIdFor(root)).curated };
}

/** Another process holding the repository's index lock until its stdin closes. */
async function lockHolder(curated: string): Promise<ChildProcess> {
  const script = join(packageRoot(), 'src', 'core', 'testing', 'holdIndexLock.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, curated, 'release-on-stdin'], { cwd: packageRoot(), stdio: ['pipe', 'pipe', 'inherit'] });
  cleanups.push(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => data.toString().includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return child;
}

/** Run `cra` in the background, collecting its output. */
function craAsync(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const done = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, out, done };
}

describe('cra index while another index of the repository runs', () => {
  it('waits, says so on stderr (also with --json), then indexes', async () => {
    const { root, dataDir, curated } = setup();
    const holder = await lockHolder(curated);
    const run = craAsync(craArgs(dataDir, 'index', root, '--json'));
    await new Promise<void>((resolve, reject) => {
      run.child.stderr.on('data', () => run.out.stderr.includes('Waiting for another index of this repository') && resolve());
      void run.done.then((code) => reject(new Error(`cra exited (${code}) before waiting: ${run.out.stderr}`)));
    });
    holder.stdin!.end();
    expect(await run.done).toBe(0);
    expect(JSON.parse(run.out.stdout)).toMatchObject({ files: 9, parsed: 9 });
    expect(run.out.stderr).not.toContain('error');
  });

  it('gives up after CRA_INDEX_LOCK_WAIT_S with what to do, not an internal error', async () => {
    const { root, dataDir, curated } = setup();
    await lockHolder(curated);
    const run = craAsync(craArgs(dataDir, 'index', root), { CRA_INDEX_LOCK_WAIT_S: '1' });
    expect(await run.done).toBe(1);
    expect(run.out.stderr).toContain('cra: error: Another index of this repository is still running after 1 s');
    expect(run.out.stderr).toContain('Let it finish and run this again');
    expect(run.out.stderr).not.toContain('internal error');
  });

  it('two cra index of one repository started together both succeed', async () => {
    const { root, dataDir } = setup();
    const runs = [craAsync(craArgs(dataDir, 'index', root, '--json')), craAsync(craArgs(dataDir, 'index', root, '--json'))];
    const codes = await Promise.all(runs.map((r) => r.done));
    expect(codes, runs.map((r) => r.out.stderr).join('\n')).toEqual([0, 0]);
    for (const r of runs) expect(JSON.parse(r.out.stdout)).toMatchObject({ files: 9 });
    // Afterwards the index is whole and readable.
    const search = spawnSync(process.execPath, craArgs(dataDir, 'search', 'Engine', '--repo', root, '--json'), { encoding: 'utf8' });
    expect(search.status, search.stderr).toBe(0);
  });
});
