import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import type { ExtractedReference } from './extract/types';
import { indexRepository } from './indexer';
import { PendingReferences } from './pendingRefs';
import { cleanupAfterEach, sharedExtractor } from '../../testing/indexerHarness';
import { writeSample } from '../../testing/sampleRepo';
import { createTestRepo } from '../../testing/gitRepo';

const extractor = sharedExtractor();
const cleanups = cleanupAfterEach();

const ref = (name: string, kind: string, line: number, fromSymbol: number | null): ExtractedReference => ({ name, kind, line, fromSymbol }) as ExtractedReference;
const symbols = [
  { id: 10, name: 'A', kind: 'class', parentId: null },
  { id: 11, name: 'run', kind: 'method', parentId: 10 },
];

describe('PendingReferences', () => {
  it.each([
    ['in memory', undefined],
    ['in the staging table from the first row', 0],
    ['spilled to the staging table after 5 rows', 5],
  ])('reads staged references back in any batch size as the rows of one batch, in staging order (%s)', (_, spillAt) => {
    const db = openDatabase(':memory:');
    cleanups.push(() => db.close());
    const pending = new PendingReferences(db, undefined, spillAt);
    const a = pending.add(1, symbols, [ref('Base', 'inherit', 1, 0), ref('self.run', 'call', 3, 1), ref('os', 'import', 1, null)]);
    expect(pending.add(2, [], [])).toBeNull();
    const b = pending.add(3, symbols, Array.from({ length: 9 }, (_, i) => ref(`f${i}`, 'call', i + 1, i % 2 === 0 ? null : 1)));
    expect(a).toEqual({ first: 1, last: 3, inherits: true });
    expect(b).toEqual({ first: 4, last: 12, inherits: false });

    const all = [...pending.batches(1000)];
    expect(all).toHaveLength(1);
    const rows = all[0]!;
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(rows[0]).toEqual({ id: 1, fileId: 1, fromId: 10, name: 'Base', kind: 'inherit', line: 1 });
    expect(rows[1]).toMatchObject({ fileId: 1, fromId: 11, name: 'self.run' });
    expect(rows[3]).toMatchObject({ fileId: 3, fromId: null, name: 'f0' });
    for (const size of [1, 2, 5, 12, 13]) {
      const batches = [...pending.batches(size)];
      expect(batches.every((batch) => batch.length <= size)).toBe(true);
      expect(batches.flat()).toEqual(rows);
    }
    expect(pending.inheritsOf(a!)).toEqual([rows[0]]);
    expect(pending.inheritsOf(b!)).toEqual([]);
    pending.close();
    expect(db.prepare("select count(*) from temp.sqlite_master where name = 'pending_refs'").pluck().get()).toBe(0);
  });

  it('gives a full index the same resolved references whether they are read back one at a time or all at once', async () => {
    const repo = createTestRepo({ git: true });
    const data = mkdtempSync(join(tmpdir(), 'cra-pending-'));
    cleanups.push(() => {
      repo.cleanup();
      rmSync(data, { recursive: true, force: true });
    });
    writeSample(repo);
    // A subclass written before its bases, as in link.test.ts: inherited members resolve across batches.
    repo.write('a_child.py', 'from m_mid import Mid\n\n\nclass Child(Mid):\n    def run(self):\n        return self.helper() + self.own()\n\n    def own(self):\n        return 1\n');
    repo.write('m_mid.py', 'from z_base import Base\n\n\nclass Mid(Base):\n    pass\n');
    repo.write('z_base.py', 'class Base:\n    def helper(self):\n        return 2\n');
    repo.commit('inheritance');
    const rowsOf = async (name: string, referenceBatch: number, referenceSpill?: number) => {
      const curatedFile = join(data, `${name}.sqlite`);
      await indexRepository({ root: repo.root, curatedFile, extractor, parallel: { workers: 0 }, referenceBatch, referenceSpill });
      const db: Db = openDatabase(curatedFile, { readOnly: true });
      try {
        return db.prepare('select id, file_id, from_symbol_id, name, kind, line, target_symbol_id from symbol_references order by id').all();
      } finally {
        db.close();
      }
    };
    const oneByOne = await rowsOf('one', 1, 0);
    const spilled = await rowsOf('spilled', 3, 7);
    const together = await rowsOf('all', 100_000);
    expect(together.length).toBeGreaterThan(10);
    expect(together.filter((r) => (r as { target_symbol_id: number | null }).target_symbol_id !== null).length).toBeGreaterThan(5);
    expect(oneByOne).toEqual(together);
    expect(spilled).toEqual(together);
  });
});
