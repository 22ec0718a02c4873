import { beforeAll, describe, expect, it, vi } from 'vitest';
import { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { sharedDefaultEmbedder } from '../../knowledge/search/search';
import { useChatFixture } from '../../testing/chatFixture';
import { searchRound } from './chatSearch';
import { RetrievedNodeCache, withNodeCache } from './nodeCache';
import { pipelineSettingsSchema } from './pipeline';
import { expand, fetchNodeTexts, seedsOf } from './retrieve';
import { detectIntent } from './router';
import { repoPaths } from '../../platform/layout';

const fx = useChatFixture();
let repoId: string;
let curated: string;

beforeAll(() => {
  repoId = fx.repoId;
  curated = repoPaths(fx.dataDir, repoId).curated;
});

const plan = detectIntent('Where is load_config?');
const retrieval = pipelineSettingsSchema.parse({ entry_step_id: 'x' }).retrieval;
const embedder = sharedDefaultEmbedder();

/** A turn's first round, as the turn runs it: search, graph expansion, bodies of the best nodes. */
async function firstRound(kb: KnowledgeBase) {
  const found = await searchRound(kb, { mode: 'BM25', queries: ['load_config'], retrieval, embedder, limit: plan.seeds });
  return fetchNodeTexts(kb, expand(kb, seedsOf(kb, found.results), plan), 12);
}

/** Run a turn's retrieval on a fresh connection through the cache; returns the evidence and how often the index was read for nodes. */
async function retrieveCounting(cache: RetrievedNodeCache, generation: string) {
  const kb = KnowledgeBase.open(curated, repoId);
  const reads = vi.spyOn(kb, 'getChunkOfFileAt');
  const deps = vi.spyOn(kb, 'getDependencies');
  try {
    const evidence = await firstRound(withNodeCache(kb, cache.forRepo(repoId, generation)));
    return { evidence, bodyReads: reads.mock.calls.length, edgeReads: deps.mock.calls.length };
  } finally {
    kb.close();
  }
}

describe('retrieved node cache', () => {
  it('a second turn reads no node from the index; the same evidence comes back', async () => {
    const cache = new RetrievedNodeCache();
    const first = await retrieveCounting(cache, 'g1');
    expect(first.bodyReads).toBeGreaterThan(0);
    expect(first.edgeReads).toBeGreaterThan(0);
    const second = await retrieveCounting(cache, 'g1');
    expect(second).toEqual({ evidence: first.evidence, bodyReads: 0, edgeReads: 0 });
    // The second turn asked for exactly what the first read: every read a hit.
    const stats = cache.stats(repoId)!;
    expect(stats.misses).toBeGreaterThanOrEqual(first.bodyReads + first.edgeReads);
    expect(stats).toEqual({ generation: 'g1', entries: stats.misses, hits: stats.misses, misses: stats.misses });
  });

  it('entries expire after the TTL, and a new index generation or invalidate() starts empty', async () => {
    let now = 1_000;
    const cache = new RetrievedNodeCache({ ttlMs: 60_000, now: () => now });
    const first = await retrieveCounting(cache, 'g1');
    now += 59_999;
    expect((await retrieveCounting(cache, 'g1')).bodyReads).toBe(0);
    now += 2;
    expect((await retrieveCounting(cache, 'g1')).bodyReads).toBe(first.bodyReads);
    expect((await retrieveCounting(cache, 'g2')).bodyReads).toBe(first.bodyReads);
    expect((await retrieveCounting(cache, 'g2')).bodyReads).toBe(0);
    cache.invalidate(repoId);
    expect(cache.stats(repoId)).toBeUndefined();
    expect((await retrieveCounting(cache, 'g2')).bodyReads).toBe(first.bodyReads);
  });

  it('hands out frozen values (turns share them) and keeps at most maxEntries, the oldest going first', () => {
    const cache = new RetrievedNodeCache({ maxEntries: 2 }).forRepo(repoId, 'g');
    const value = cache.get('a', () => [{ line: 1 }]);
    expect(Object.isFrozen(value) && Object.isFrozen(value[0])).toBe(true);
    cache.get('b', () => 2);
    cache.get('c', () => 3);
    let computed = false;
    cache.get('a', () => ((computed = true), []));
    expect(computed).toBe(true);
    expect(cache.stats().entries).toBe(2);
  });
});
