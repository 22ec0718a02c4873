import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../platform/db/open';
import { createExtractor } from '../indexer/extract/extractor';
import { indexRepository } from '../indexer/indexer';
import { writeSample } from '../../testing/sampleRepo';
import { searchRepository } from '../search/search';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { KnowledgeBase } from './knowledgeBase';

let repo: TestRepo;
let dataDir: string;
let curatedFile: string;

beforeAll(async () => {
  repo = createTestRepo();
  writeSample(repo);
  dataDir = mkdtempSync(join(tmpdir(), 'cra-kb-statements-'));
  curatedFile = join(dataDir, 'curated.sqlite');
  const extractor = await createExtractor();
  await indexRepository({ root: repo.root, curatedFile, extractor: async () => extractor });
  extractor.dispose();
});
afterAll(() => {
  repo.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the KnowledgeBase statement cache', () => {
  it('prepares each SQL once per connection, for its own reads and for searches, whatever the arguments', async () => {
    const db = openDatabase(curatedFile, { readOnly: true, withVectors: true });
    const prepare = vi.spyOn(db, 'prepare');
    const kb = new KnowledgeBase(db, 'sample');
    try {
      const core = kb.getFileByPath('pkg/core.py')!.id;
      const util = kb.getFileByPath('pkg/util.py')!.id;
      const engine = kb.searchSymbolsByName('Engine')[0]!.id;
      // Different arguments each round: id lists and kind filters travel as parameters, not as SQL text.
      const round = async (ids: number[], kinds: string[], query: string) => {
        kb.getFileContext(core);
        kb.getRepoOverview();
        kb.getDependencySubgraph(ids, 1);
        kb.getSymbolNeighbors(engine, 'both', kinds);
        kb.embedders();
        await searchRepository(kb, query, { mode: 'keyword' });
        // A bare connection searches through the same KnowledgeBase (and cache).
        await searchRepository(db, query, { mode: 'keyword' });
      };
      await round([core], ['call'], 'engine start');
      const firstRound = prepare.mock.calls.map((call) => call[0]);
      expect(firstRound.length).toBeGreaterThan(15);
      expect(firstRound.filter((sql, i) => firstRound.indexOf(sql) !== i)).toEqual([]);
      expect(kb.preparedStatements).toBe(firstRound.length);

      await round([core, util], ['call', 'inherit'], 'helper double CONSTANT');
      await round([util], [], 'engine start');
      expect(prepare.mock.calls.map((call) => call[0])).toEqual(firstRound);
    } finally {
      kb.close();
    }
  });

  it('gives a connection the same KnowledgeBase every time', () => {
    const db = openDatabase(curatedFile, { readOnly: true });
    try {
      const kb = KnowledgeBase.of(db);
      expect(KnowledgeBase.of(db)).toBe(kb);
      expect(KnowledgeBase.of(kb)).toBe(kb);
    } finally {
      db.close();
    }
  });
});
