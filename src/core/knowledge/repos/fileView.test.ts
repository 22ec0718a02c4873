import { mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestRepo } from '../../testing/gitRepo';
import { createTempCore } from '../../testing/tempCore';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** An indexed real git repository and a secret file outside it. */
async function indexed() {
  const temp = createTempCore();
  cleanups.push(temp.cleanup);
  const repo = createTestRepo();
  cleanups.push(() => repo.cleanup());
  const outside = mkdtempSync(join(tmpdir(), 'cra-outside-'));
  cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(join(outside, 'view.py'), 'SECRET = "outside the repository"\n');
  repo.write('pkg/view.py', 'def view():\n    return 1\n');
  repo.write('pkg/other.py', 'def other():\n    return 2\n');
  repo.commit('initial');
  const { repo: added, runId } = await temp.core.handlers['repos/add']({ path: repo.root, watch: false });
  await temp.core.runs.wait(runId);
  return { core: temp.core, repoId: added.id, root: repo.root, outside };
}

describe('the file view (repos/file)', () => {
  it('refuses an indexed file replaced by a symbolic link to a file outside the repository', async () => {
    const { core, repoId, root, outside } = await indexed();
    expect((await core.handlers['repos/file']({ repoId, path: 'pkg/view.py', maxContentBytes: 1000 })).content).toContain('def view');
    rmSync(join(root, 'pkg/view.py'));
    symlinkSync(join(outside, 'view.py'), join(root, 'pkg/view.py'));
    const failure = await core.handlers['repos/file']({ repoId, path: 'pkg/view.py', maxContentBytes: 1000 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'VALIDATION', message: expect.stringContaining('outside the repository') });
    expect(JSON.stringify(failure)).not.toContain('SECRET');
  });

  it('refuses an indexed folder replaced by a symbolic link to a folder outside', async () => {
    const { core, repoId, root, outside } = await indexed();
    renameSync(join(root, 'pkg'), join(root, 'pkg-moved'));
    symlinkSync(outside, join(root, 'pkg'));
    await expect(core.handlers['repos/file']({ repoId, path: 'pkg/view.py', maxContentBytes: 1000 })).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('shows no content, without an error, for a file deleted since indexing', async () => {
    const { core, repoId, root } = await indexed();
    rmSync(join(root, 'pkg/other.py'));
    const view = await core.handlers['repos/file']({ repoId, path: 'pkg/other.py', maxContentBytes: 1000 });
    expect(view).toMatchObject({ content: null, contentTruncated: false });
    expect(view.symbols.map((s) => s.name)).toEqual(['other']);
  });
});
