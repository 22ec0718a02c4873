import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Database from 'better-sqlite3';
import { RepoRegistry } from './registry';
import { registryFile } from '../../platform/layout';

const cleanups: Array<() => void> = [];
afterEach(() => {
  vi.restoreAllMocks();
  while (cleanups.length) cleanups.pop()!();
});

describe('RepoRegistry.add', () => {
  it('goes on with the row of another process that registered the same folder between its lookup and its insert', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-registry-'));
    const mine = new RepoRegistry(dataDir);
    const theirs = new RepoRegistry(dataDir);
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), () => theirs.close(), () => mine.close());
    const folder = join(dataDir, 'project');

    // The race of two `cra index` started together: my lookup finds nothing, then theirs inserts first.
    const lookup = vi.spyOn(mine, 'findByPath').mockImplementationOnce(() => {
      theirs.add(folder, false);
      return undefined;
    });
    const added = mine.add(folder, true);

    expect(lookup).toHaveBeenCalled();
    expect(added.path).toBe(folder);
    expect(mine.list().map((r) => r.id)).toEqual([added.id]);
    expect(theirs.findByPath(folder)?.id).toBe(added.id);
  });
});

describe('RepoRegistry.updateSettings', () => {
  function registry(): { reg: RepoRegistry; dataDir: string } {
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-registry-'));
    const reg = new RepoRegistry(dataDir);
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), () => reg.close());
    return { reg, dataDir };
  }

  it('keeps a chosen chat pipeline with the repository across status updates and a reopen; null removes it', () => {
    const { reg, dataDir } = registry();
    const repo = reg.add(join(dataDir, 'project'), false);
    expect(repo.settings).toBeUndefined();
    expect(reg.updateSettings(repo.id, { chatPipeline: 'team' })?.settings).toEqual({ chatPipeline: 'team' });
    reg.update(repo.id, { status: 'ready', lastIndexedAt: '2024-01-01T00:00:00.000Z', watching: true });
    const again = new RepoRegistry(dataDir);
    cleanups.push(() => again.close());
    expect(again.get(repo.id)?.settings).toEqual({ chatPipeline: 'team' });
    expect(reg.updateSettings(repo.id, { chatPipeline: null })?.settings).toBeUndefined();
    expect(again.get(repo.id)?.settings).toBeUndefined();
  });

  it('validates with the contract schema before writing; an unknown repository is undefined', () => {
    const { reg, dataDir } = registry();
    const repo = reg.add(join(dataDir, 'project'), false);
    reg.updateSettings(repo.id, { chatPipeline: 'team' });
    expect(() => reg.updateSettings(repo.id, { chatPipeline: 'not a name!' })).toThrow(/pipeline must be a pipeline name/);
    expect(reg.get(repo.id)?.settings).toEqual({ chatPipeline: 'team' });
    expect(reg.updateSettings('nope-00000000', { chatPipeline: 'team' })).toBeUndefined();
  });

  it('drops stored settings this version cannot read instead of failing the repository', () => {
    const { reg, dataDir } = registry();
    const repo = reg.add(join(dataDir, 'project'), false);
    const db = new Database(registryFile(dataDir));
    cleanups.push(() => db.close());
    for (const stored of ['{not json', '{"chatPipeline": 7}', '{"somethingNew": true}']) {
      db.prepare('update repos set settings_json = ? where id = ?').run(stored, repo.id);
      expect(reg.get(repo.id)).toMatchObject({ id: repo.id, path: repo.path });
      expect(reg.get(repo.id)?.settings).toBeUndefined();
    }
  });
});
