import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KnowledgeBase } from '../kb/knowledgeBase';
import { repoPaths } from '../repos/registry';
import { createChatRepo } from '../testing/chatRepo';
import type { TestRepo } from '../testing/gitRepo';
import { createTempCore } from '../testing/tempCore';
import { sharedDefaultEmbedder } from '../search/search';
import { searchRound } from './chatSearch';
import { NodeCache } from './nodeCache';
import { pipelineSettingsSchema } from './pipeline';
import { expand, fetchNodeTexts, seedsOf } from './retrieve';
import { detectIntent } from './router';

const temp = createTempCore();
let repo: TestRepo;
let kb: KnowledgeBase;

beforeAll(async () => {
  repo = createChatRepo();
  const { repo: info, runId } = await temp.core.handlers['repos/add']({ path: repo.root });
  await temp.core.runs.wait(runId);
  kb = KnowledgeBase.open(repoPaths(temp.dataDir, info.id).curated, info.id, { withVectors: true });
}, 60_000);
afterAll(async () => {
  kb.close();
  repo.cleanup();
  await temp.cleanup();
});

/** A reader whose index is at `version` (what the cache checks), for the cache's own rules. */
function fakeReader(version: { now: number }): KnowledgeBase {
  return { searchIndex: { searchStats: () => ({ dataVersion: version.now }) } } as unknown as KnowledgeBase;
}

describe('the node cache', () => {
  it('gives the same expansion and bodies as reading the index, and a second turn reads nothing again', async () => {
    const question = 'Where is load_config?';
    const plan = detectIntent(question);
    const retrieval = pipelineSettingsSchema.parse({ entry_step_id: 'x' }).retrieval;
    const found = await searchRound(kb, { mode: 'BM25', queries: ['load_config'], retrieval, embedder: sharedDefaultEmbedder(), limit: plan.seeds });
    const seeds = () => seedsOf(kb, found.results);
    const uncached = expand(kb, seeds(), plan);
    const uncachedEvidence = fetchNodeTexts(kb, uncached, 12);
    expect(uncached.some((n) => n.role === 'neighbour')).toBe(true);

    const cache = new NodeCache();
    const cold = expand(kb, seeds(), plan, cache.at(kb));
    expect(cold).toEqual(uncached);
    expect(fetchNodeTexts(kb, cold, 12, cache.at(kb))).toEqual(uncachedEvidence);
    expect(cache.size).toBeGreaterThan(0);

    const reads = [vi.spyOn(kb, 'getDependencies'), vi.spyOn(kb, 'getCoChangeNeighbors'), vi.spyOn(kb, 'getSymbolsAround'), vi.spyOn(kb, 'getChunkOfFileAt')];
    try {
      const warm = expand(kb, seeds(), plan, cache.at(kb));
      expect(warm).toEqual(uncached);
      expect(fetchNodeTexts(kb, warm, 12, cache.at(kb))).toEqual(uncachedEvidence);
      for (const read of reads) expect(read).not.toHaveBeenCalled();
    } finally {
      for (const read of reads) read.mockRestore();
    }
  });

  it('empties itself when the index changes or another reader asks, and lets entries expire', () => {
    let now = 0;
    const cache = new NodeCache(1000, 10, () => now);
    const version = { now: 1 };
    const reader = fakeReader(version);
    let loads = 0;
    const load = () => ++loads;
    expect(cache.at(reader).get('a', load)).toBe(1);
    expect(cache.at(reader).get('a', load)).toBe(1);
    version.now = 2;
    expect(cache.at(reader).get('a', load)).toBe(2);
    expect(cache.at(fakeReader(version)).get('a', load)).toBe(3);
    now = 999;
    const view = cache.at(fakeReader(version));
    expect(view.get('a', load)).toBe(4);
    now = 1998;
    expect(view.get('a', load)).toBe(4);
    now = 1999;
    expect(view.get('a', load)).toBe(5);
  });

  it('keeps at most its entry limit, dropping the oldest', () => {
    const cache = new NodeCache(60_000, 3);
    const view = cache.at(fakeReader({ now: 1 }));
    for (const key of ['a', 'b', 'c', 'd']) view.get(key, () => key);
    expect(cache.size).toBe(3);
    expect(view.get('a', () => 'again')).toBe('again');
    expect(view.get('d', () => 'again')).toBe('d');
  });
});
