import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RepoRegistry } from './registry';

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
