import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { indexRepository } from './indexer';
import { cleanupAfterEach, sharedExtractor } from '../../testing/indexerHarness';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';

const extractor = sharedExtractor();
const cleanups = cleanupAfterEach();

function setup(): { repo: TestRepo; index(full?: boolean): ReturnType<typeof indexRepository>; db(): Db } {
  const repo = createTestRepo({ git: true });
  const data = mkdtempSync(join(tmpdir(), 'cra-link-'));
  const curatedFile = join(data, 'curated.sqlite');
  let db: Db | null = null;
  cleanups.push(() => {
    db?.close();
    repo.cleanup();
    rmSync(data, { recursive: true, force: true });
  });
  return {
    repo,
    index: (full = false) => indexRepository({ root: repo.root, curatedFile, extractor, full, parallel: { workers: 0 } }),
    db: () => (db ??= openDatabase(curatedFile, { readOnly: true })),
  };
}

/** `path:line name → target file:qualified name` (or `-` when unresolved) for the references of a file. */
function targets(db: Db, path: string): string[] {
  return (
    db
      .prepare(
        `select r.line || ' ' || r.name || ' -> ' || coalesce(tf.path || ':' || t.qualified_name, '-') from symbol_references r
         join files f on f.id = r.file_id left join symbols t on t.id = r.target_symbol_id left join files tf on tf.id = t.file_id
         where f.path = ? and r.kind != 'import' order by r.line, r.name`,
      )
      .pluck()
      .all(path) as string[]
  );
}

// The subclass sorts (and is written) before its bases: members inherited through a middle class
// whose own base is resolved later must still resolve.
const CHILD = 'from m_mid import Mid\n\n\nclass Child(Mid):\n    def run(self):\n        return self.helper() + self.own()\n\n    def own(self):\n        return 1\n';
const MID = 'from z_base import Base\n\n\nclass Mid(Base):\n    pass\n';
const BASE = 'class Base:\n    def helper(self):\n        return 2\n';

describe('reference linking', () => {
  it('resolves inherited members across files on a full index, whatever the file order', async () => {
    const env = setup();
    env.repo.write('a_child.py', CHILD);
    env.repo.write('m_mid.py', MID);
    env.repo.write('z_base.py', BASE);
    env.repo.commit('init');
    await env.index();
    expect(targets(env.db(), 'a_child.py')).toEqual([
      '4 Mid -> m_mid.py:Mid',
      '6 self.helper -> z_base.py:Base.helper',
      '6 self.own -> a_child.py:Child.own',
    ]);
  });

  it('re-targets references into a changed file and out of a changed file, and nulls those into a removed one', async () => {
    const env = setup();
    env.repo.write('a_child.py', CHILD);
    env.repo.write('m_mid.py', MID);
    env.repo.write('z_base.py', BASE);
    env.repo.commit('init');
    await env.index();
    const full = targets(env.db(), 'a_child.py');

    // The base file changes: its symbols get new ids; references into it follow them (the middle
    // file imports it; the child reaches it through the middle class).
    env.repo.write('z_base.py', `# moved down\n\n${BASE}`);
    expect((await env.index()).parsed).toBe(1);
    expect(targets(env.db(), 'a_child.py')).toEqual(full);
    const helperId = env.db().prepare("select id from symbols where qualified_name = 'Base.helper'").pluck().get();
    expect(env.db().prepare("select target_symbol_id from symbol_references where name = 'self.helper'").pluck().get()).toBe(helperId);

    // The child changes: its references are inserted resolved against the stored base file.
    env.repo.write('a_child.py', CHILD.replace('self.helper()', 'self.helper() + self.missing()'));
    expect((await env.index()).parsed).toBe(1);
    expect(targets(env.db(), 'a_child.py')).toEqual([...full.slice(0, 2), '6 self.missing -> -', full[2]]);

    // The base file goes: nothing points at it any more, and a full rebuild agrees with the incremental state.
    env.repo.remove('z_base.py');
    expect((await env.index()).removed).toBe(1);
    const afterRemove = targets(env.db(), 'a_child.py');
    expect(afterRemove.filter((t) => t.includes('z_base.py'))).toEqual([]);
    await env.index(true);
    expect(targets(env.db(), 'a_child.py')).toEqual(afterRemove);
  });
});
