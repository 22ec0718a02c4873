import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSample } from '../../core/testing/sampleRepo';
import { createTestRepo, type TestRepo } from '../../core/testing/gitRepo';
import { startServeProcess, type ServeProcess } from '../serve/testing/serveProcess';
import { remoteClient } from './remote';
import { runCra } from './testing/cra';

/**
 * `cra --remote URL`: the commands run against a real `cra serve` process over its HTTP API and
 * WebSocket. The client's own data folder stays empty: everything happens in the server's.
 */
let serve: ServeProcess;
let root: string;
let repo: TestRepo;
let url: URL;

beforeAll(async () => {
  repo = createTestRepo();
  writeSample(repo);
  serve = await startServeProcess('cra-remote-');
  ({ root, url } = serve);
}, 60_000);

afterAll(async () => {
  await serve.stop();
  repo.cleanup();
});

describe('cra --remote against a running cra serve', () => {
  it('indexes, searches and reads the logs of the server, with the token as a flag or in the URL', async () => {
    const clientData = join(root, 'client-data');
    const token = url.searchParams.get('token')!;
    const remote = ['--remote', url.origin, '--token', token];

    const indexed = await runCra(clientData, [...remote, 'index', repo.root, '--json']);
    expect(indexed.stderr).toBe('');
    expect(indexed.status).toBe(0);
    expect(JSON.parse(indexed.stdout.trim().split('\n').pop()!)).toMatchObject({ files: expect.any(Number) });

    const searched = await runCra(clientData, ['--remote', url.href, 'search', 'helper', '--repo', repo.root, '--json']);
    expect(searched.stderr).toBe('');
    expect(searched.status).toBe(0);
    const response = JSON.parse(searched.stdout) as { results: Array<{ path: string }> };
    expect(response.results.length, `${indexed.stdout}\n${searched.stdout}`).toBeGreaterThan(0);

    const logs = await runCra(clientData, [...remote, 'logs', '--repo', repo.root]);
    expect(logs.status).toBe(0);
    expect(logs.stdout).toContain('No model calls');
  }, 120_000);

  it('refuses a wrong token, and a command that runs on this machine only, each saying what to do', async () => {
    const clientData = join(root, 'client-data');
    const wrong = await runCra(clientData, ['--remote', url.origin, '--token', 'not-the-token', 'search', 'parse', '--repo', repo.root]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('cra: error:');
    expect(wrong.stderr).toContain('--token');
    const local = await runCra(clientData, ['--remote', url.href, 'serve', '--port', '0']);
    expect(local.status).toBe(1);
    expect(local.stderr).toContain('without --remote');
  }, 120_000);

  it('waits for a run that ended before this client heard of it: the run record and result from run/attach', async () => {
    const target = { origin: url.origin, token: url.searchParams.get('token')! };
    const starter = remoteClient(target);
    const late = remoteClient(target);
    try {
      const found = await starter.request('repos/find', { path: repo.root });
      const { run } = found ? await starter.request('repos/reindex', { repoId: found.id, full: false }) : await starter.request('repos/add', { path: repo.root });
      expect(run).toMatchObject({ kind: 'index', status: 'running' });
      await starter.wait(run.runId);
      // A client that connects after the end saw no run/finished for it.
      await expect(late.wait(run.runId, 'index')).resolves.toMatchObject({ files: expect.any(Number) });
    } finally {
      await starter.dispose();
      await late.dispose();
    }
  }, 60_000);
});
