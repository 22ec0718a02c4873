import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunInfo } from '../../../shared/contract';
import { openRawDatabase } from '../../platform/db/raw';
import { repoPaths } from '../../platform/layout';
import { RawCallLog } from '../../platform/logs/callLog';
import { RawRunJournal } from '../../platform/logs/runLog';
import { RawDecisionLog } from '../../features/retrieval/decisionLog';
import { createTestRepo } from '../../testing/gitRepo';
import { createTempCore } from '../../testing/tempCore';

/** The files under `dir` this process has open (Linux: /proc/self/fd). */
function openFilesUnder(dir: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(join('/proc/self/fd', fd));
      if (target.startsWith(`${dir}/`)) open.push(target);
    } catch {
      // closed while listed (the listing's own descriptor)
    }
  }
  return open;
}

const linux = existsSync('/proc/self/fd');

describe('RepoHandles: one reference-counted handle per opened repository (issue 23 item 3)', () => {
  const { core, cleanup } = createTempCore();
  const repos = core.context.repos;
  afterAll(cleanup);

  async function addRepo(name: string): Promise<string> {
    const { root } = createTestRepo({ prefix: `cra-handle-${name}-` });
    writeFileSync(join(root, 'mail.py'), 'def send_mail(to):\n    return to\n');
    const { repo, runId } = await core.handlers['repos/add']({ path: root });
    await core.runs.wait(runId);
    return repo.id;
  }

  let repoId: string;
  beforeAll(async () => {
    repoId = await addRepo('shared');
  });

  it('two opens share one raw connection, one table accessor per class, and one index reader', () => {
    const a = repos.openIndexed(repoId);
    const b = repos.openIndexed(repoId);
    expect(repos.references(repoId)).toBe(2);
    expect(a.raw).toBe(b.raw);
    expect(a.table(RawCallLog)).toBe(b.table(RawCallLog));
    expect(a.table(RawDecisionLog)).not.toBe(a.table(RawCallLog));
    expect(a.kb).toBe(b.kb);
    expect(a.paths.raw).toBe(join(core.context.ports.dataDir, 'repos', repoId, 'raw.sqlite'));
    const raw = a.raw;
    a.dispose();
    b.dispose();
    b.dispose();
    expect(repos.references(repoId)).toBe(0);
    // Kept open for the next request (opening costs more than a query) until removal or shutdown.
    expect(raw.open).toBe(true);
    expect(repos.openIndexed(repoId).raw).toBe(raw);
  });

  it('a use after dispose throws an error that says so', () => {
    const h = repos.openIndexed(repoId);
    h.dispose();
    expect(() => h.raw).toThrow(`The handle of repository ${repoId} was disposed; the raw DB needs a handle of its own (repos.open).`);
    expect(() => h.kb).toThrow(/was disposed; reading the index needs a handle/);
    expect(() => h.table(RawCallLog)).toThrow(/was disposed; the RawCallLog table needs a handle/);
  });

  it('an unknown or unindexed repository is refused as the registry lookup refuses it', () => {
    expect(() => repos.open('nope-00000000')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => repos.openIndexed('nope-00000000')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it.runIf(linux)('closing a repository closes its connections: its SQLite files can be renamed and nothing holds them', async () => {
    const id = await addRepo('close');
    const h = repos.openIndexed(id);
    const raw = h.raw;
    h.table(RawCallLog).append({ provider: 'ollama', baseUrl: 'http://127.0.0.1:9', model: 'm', prompt: 'p', params: {}, latencyMs: 1, createdAt: new Date().toISOString() });
    expect(h.kb.getFiles().length).toBeGreaterThan(0);
    const dir = h.paths.dir;
    h.dispose();
    // Disposed, but kept open for the next request: the pool's reader and the raw connection.
    expect(openFilesUnder(dir)).toEqual(expect.arrayContaining([h.paths.raw, h.paths.curated]));

    repos.close(id);
    expect(raw.open).toBe(false);
    expect(openFilesUnder(dir)).toEqual([]);
    renameSync(h.paths.raw, `${h.paths.raw}.moved`);
    renameSync(h.paths.curated, `${h.paths.curated}.moved`);
    expect(existsSync(`${h.paths.raw}.moved`)).toBe(true);
  });

  it.runIf(linux)('removing a repository closes its connections once the last request holding it lets go, and it cannot be opened again', async () => {
    const id = await addRepo('remove');
    const held = repos.openIndexed(id);
    const raw = held.raw;
    expect(held.kb.getFiles().length).toBeGreaterThan(0);
    const other = repos.openIndexed(id);
    other.dispose();

    await core.handlers['repos/remove']({ repoId: id });
    expect(existsSync(held.paths.dir)).toBe(false);
    // Still held by a request: open until it is done.
    expect(raw.open).toBe(true);
    held.dispose();
    expect(raw.open).toBe(false);
    expect(openFilesUnder(held.paths.dir)).toEqual([]);
    expect(() => repos.open(id)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('a reference held across a removal cannot recreate the removed log', async () => {
    const id = await addRepo('late');
    const held = repos.openIndexed(id);
    await core.handlers['repos/remove']({ repoId: id });
    expect(() => held.raw).toThrow(expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringContaining('was removed') }));
    held.dispose();
    expect(existsSync(held.paths.dir)).toBe(false);
  });
});

describe("the run journal writes a repository's rows through its shared connection", () => {
  it('RawRunJournal uses the connection it is given for a repository run, and the file only when none is given', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-journal-'));
    const paths = repoPaths(dataDir, 'shop-00000001');
    mkdirSync(paths.dir, { recursive: true });
    const user = openRawDatabase(':memory:');
    // A connection that is not the file: a row found here was written through it, not by opening the file.
    const shared = openRawDatabase(':memory:');
    const run = (runId: string): RunInfo => ({ runId, kind: 'retrieve', title: 't', status: 'running', subject: { repoId: 'shop-00000001' }, startedAt: new Date().toISOString() }) as RunInfo;
    try {
      new RawRunJournal(dataDir, () => user, () => shared).started(run('r-shared'));
      expect(shared.prepare('select id from task_runs').pluck().all()).toEqual(['r-shared']);
      expect(existsSync(paths.raw)).toBe(false);

      new RawRunJournal(dataDir, () => user, () => undefined).started(run('r-file'));
      const file = openRawDatabase(paths.raw);
      expect(file.prepare('select id from task_runs').pluck().all()).toEqual(['r-file']);
      file.close();
    } finally {
      user.close();
      shared.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("the engine's handles share a repository's connection with the journal, and none once it is removed", async () => {
    const { core, cleanup } = createTempCore();
    try {
      const { root } = createTestRepo({ prefix: 'cra-handle-journal-' });
      writeFileSync(join(root, 'a.py'), 'x = 1\n');
      const { repo, runId } = await core.handlers['repos/add']({ path: root });
      await core.runs.wait(runId);
      const h = core.context.repos.open(repo.id);
      expect(core.context.repos.sharedRaw(repo.id)).toBe(h.raw);
      // The index run's row went through that connection.
      expect(h.raw.prepare('select status from task_runs where id = ?').pluck().get(runId)).toBe('done');
      h.dispose();
      await core.handlers['repos/remove']({ repoId: repo.id });
      expect(core.context.repos.sharedRaw(repo.id)).toBeUndefined();
    } finally {
      await cleanup();
    }
  });
});
