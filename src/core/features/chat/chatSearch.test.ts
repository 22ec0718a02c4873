import { beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { Embedder } from '../../knowledge/search/embedder';
import { useChatFixture } from '../../testing/chatFixture';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { distributionFusion, rerankByKeywords, searchRound } from './chatSearch';
import { pipelineSettingsSchema } from './pipeline';

describe('score fusion', () => {
  it('distribution-based fusion scales each list by its own spread, then weighs them', () => {
    const keyword = [
      { path: 'a', score: 30 },
      { path: 'b', score: 10 },
    ];
    const vector = [
      { path: 'b', score: 0.9 },
      { path: 'c', score: 0.5 },
    ];
    const fused = distributionFusion([
      { weight: 0.5, ranked: keyword },
      { weight: 0.5, ranked: vector },
    ]);
    // Each list: mean ± 3σ → a list of two is scaled to 1/3 and 2/3; b is in both lists: 0.5 × 1/3 + 0.5 × 2/3.
    expect(fused.map((r) => [r.path, Math.round(r.score * 1000) / 1000])).toEqual([
      ['b', 0.5],
      ['a', 0.333],
      ['c', 0.167],
    ]);
    // Weights shift the balance: keyword alone puts a first.
    expect(distributionFusion([{ weight: 1, ranked: keyword }, { weight: 0, ranked: vector }])[0]!.path).toBe('a');
    expect(distributionFusion([{ weight: 1, ranked: [{ path: 'x', score: 5 }] }])).toEqual([{ path: 'x', score: 1 }]);
  });

  it('keyword re-ranking of a vector pool ranks only the pool, keyword evidence lifting a candidate', () => {
    const pool = [
      { path: 'near', score: 0.9 },
      { path: 'named', score: 0.8 },
    ];
    const keyword = [
      { path: 'named', score: 12 },
      { path: 'outside', score: 20 },
    ];
    const ranked = rerankByKeywords(pool, keyword);
    expect(ranked.map((r) => r.path)).toEqual(['named', 'near']);
    expect(ranked[0]!.score).toBeCloseTo(0.6 * (0.8 / 0.9) + 0.4 * (12 / 20), 6);
  });
});

describe('vector modes over real vectors from the loopback embedding model', () => {
  const fx = useChatFixture({ embedding: true, embedChunks: true });
  let server: OllamaTestServer;
  let kb: KnowledgeBase;
  let embedder: Embedder;
  const retrieval = pipelineSettingsSchema.parse({ entry_step_id: 'x' }).retrieval;

  beforeAll(() => ({ server, kb, embedder } = fx));

  it('SEMANTIC_RERANK widens the vector pool and re-ranks it by keyword evidence', async () => {
    expect(kb.vectorCount(embedder.id)).toBeGreaterThan(0);
    const semantic = await searchRound(kb, { mode: 'SEMANTIC', queries: ['load_config'], retrieval, embedder, limit: 8 });
    expect(semantic).toMatchObject({ searchMode: 'semantic', notes: [] });
    const reranked = await searchRound(kb, { mode: 'SEMANTIC_RERANK', queries: ['load_config'], retrieval, embedder, limit: 2 });
    expect(reranked.searchMode).toBe('semantic_rerank');
    expect(reranked.results).toHaveLength(2);
    // The file that defines load_config wins on keyword evidence whatever the (character-count) vectors say.
    expect(reranked.results[0]!.path).toBe('config.py');
    const pool = new Set(semantic.results.map((r) => r.path));
    for (const r of reranked.results) expect(pool.has(r.path)).toBe(true);
  });

  it('HYBRID fuses by RRF or, when the pipeline says dist, by distribution-based fusion', async () => {
    const rrf = await searchRound(kb, { mode: 'HYBRID', queries: ['load_config'], retrieval, embedder, limit: 4 });
    expect(rrf).toMatchObject({ searchMode: 'hybrid', fusion: 'rrf' });
    const dist = await searchRound(kb, { mode: 'HYBRID', queries: ['load_config'], retrieval: { ...retrieval, fusion: 'dist', weights: [1, 0] }, embedder, limit: 4 });
    expect(dist).toMatchObject({ searchMode: 'hybrid', fusion: 'dist' });
    expect(dist.results[0]!.path).toBe('config.py');
    expect(dist.results.every((r) => r.score <= 1)).toBe(true);
  });

  it('an embedding model that fails degrades to keyword search, said in the notes — never an error', async () => {
    server.script.embedFaults.push('http500');
    const found = await searchRound(kb, { mode: 'SEMANTIC', queries: ['load_config'], retrieval, embedder, limit: 4 });
    expect(found.searchMode).toBe('keyword');
    expect(found.notes[0]).toMatch(/^SEMANTIC could not embed the query \(.*\): keyword search ran instead\.$/);
    expect(found.results[0]!.path).toBe('config.py');
  });
});
