import { beforeAll, describe, expect, it } from 'vitest';
import type { SearchResult } from '../../../shared/contract/search';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../platform/llm/client';
import { createEmbedder, type Embedder } from '../../knowledge/search/embedder';
import { useChatFixture } from '../../testing/chatFixture';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { TurnCalls } from './calls';
import { searchRound } from './chatSearch';
import { pipelineSettingsSchema } from './pipeline';
import { parseRelevance, parseRerankOrder, rerankPool } from './rerank';
import { runChatTurn } from './turn';

/*
 * Re-ranking of the fused pool by the rerank stage's model, over the loopback model server: the
 * strict reading of both reply forms, the model's order when the reply keeps the format, and the
 * deterministic fallbacks (embedding similarity with vectors, else the fused order) for garbage
 * replies and failed calls — and a whole turn with re-ranking turned on by its pipeline.
 */

describe('reading the re-ranker strictly', () => {
  it('a batched reply: one line of candidate numbers, each once and in range; anything else is refused with the reason', () => {
    expect(parseRerankOrder('3, 1,2', 3)).toEqual({ order: [2, 0, 1] });
    expect(parseRerankOrder('<think>1 looks best</think>\n2', 3)).toEqual({ order: [1] });
    expect(parseRerankOrder('', 3)).toEqual({ error: 'the reply was empty' });
    expect(parseRerankOrder('<think>hmm</think>', 3)).toEqual({ error: 'the reply was empty' });
    expect(parseRerankOrder('Ranking: 2, 1', 3)).toEqual({ error: 'the reply was not a list of candidate numbers' });
    expect(parseRerankOrder('2, 1 because 2 defines it', 3)).toEqual({ error: 'the reply was not a list of candidate numbers' });
    expect(parseRerankOrder('2\n1', 3)).toEqual({ error: 'the reply had more than one line' });
    expect(parseRerankOrder('2, 4', 3)).toEqual({ error: 'candidate 4 does not exist (1–3)' });
    expect(parseRerankOrder('0', 3)).toEqual({ error: 'candidate 0 does not exist (1–3)' });
    expect(parseRerankOrder('1, 1', 3)).toEqual({ error: 'candidate 1 was listed twice' });
  });

  it('a per-item reply: one whole number from 0 to 10', () => {
    expect(parseRelevance('7')).toBe(7);
    expect(parseRelevance(' 10 ')).toBe(10);
    expect(parseRelevance('<think>it defines it</think>9')).toBe(9);
    for (const bad of ['', 'Yes.', '11', '7/10', '7.5', 'Score: 7', '-1', '<think>unfinished']) expect(parseRelevance(bad)).toBeNull();
  });
});

describe('re-ranking over the loopback model server', () => {
  const fx = useChatFixture({ embedding: true, embedChunks: true });
  let server: OllamaTestServer;
  let kb: KnowledgeBase;
  let embedder: Embedder;
  let client: LlmClient;
  let pool: SearchResult[];
  const retrieval = pipelineSettingsSchema.parse({ entry_step_id: 'x' }).retrieval;

  beforeAll(async () => {
    ({ server, kb, embedder, client } = fx);
    pool = (await searchRound(kb, { mode: 'BM25', queries: ['load_config send_mail settings'], retrieval, embedder, limit: 20 })).results;
  });

  const paths = (results: readonly SearchResult[]) => results.map((r) => r.path);
  const noVectors = () => createEmbedder({ id: 'never-embedded', dimensions: 8, embedBatch: async () => [] });

  it('batch: one call on the rerank stage with every candidate; its order wins, candidates it left out follow in the fused order', async () => {
    expect(pool.length).toBeGreaterThanOrEqual(3);
    server.script.chat.push({ text: `<think>the last one</think>${pool.length}, 1` });
    const calls = new TurnCalls(client);
    const done = await rerankPool(pool, { kb, embedder, calls, query: 'Where are mails sent?', style: 'batch' });
    expect(done.rerank).toEqual({ method: 'model', style: 'batch', pool: pool.length });
    expect(paths(done.results)).toEqual([pool.at(-1)!.path, pool[0]!.path, ...paths(pool.slice(1, -1))]);
    expect(done.results.map((r) => r.score)).toEqual([...done.results.map((r) => r.score)].sort((a, b) => b - a));
    expect(calls.calls.map((c) => [c.purpose, c.stage])).toEqual([['rerank', 'rerank']]);
    for (const p of paths(pool)) expect(calls.calls[0]!.prompt).toContain(p);
    expect(calls.calls[0]!.prompt).toContain('def load_config(path):');
  });

  it('batch garbage with vectors: ordered by embedding similarity to the query, the reason kept', async () => {
    server.script.chat.push({ text: 'Sure! The best candidates are 2 and 1.' });
    const done = await rerankPool(pool, { kb, embedder, calls: new TurnCalls(client), query: 'send_mail SMTP', style: 'batch' });
    expect(done.rerank).toEqual({ method: 'embedding', style: 'batch', pool: pool.length, reason: "the re-ranker's reply broke the format (the reply was not a list of candidate numbers)" });
    const near = (await searchRound(kb, { mode: 'SEMANTIC', queries: ['send_mail SMTP'], retrieval, embedder, limit: 50 })).results.map((r) => r.path);
    const expected = [...paths(pool)].sort((a, b) => near.indexOf(a) - near.indexOf(b));
    expect(paths(done.results)).toEqual(expected);
  });

  it('garbage without vectors for the embedder: the fused order, unchanged, and why', async () => {
    server.script.chat.push({ text: '2, 2' });
    const done = await rerankPool(pool, { kb, embedder: noVectors(), calls: new TurnCalls(client), query: 'send_mail', style: 'batch' });
    expect(done.rerank).toEqual({ method: 'fused', style: 'batch', pool: pool.length, reason: "the re-ranker's reply broke the format (candidate 2 was listed twice); no vectors for never-embedded" });
    expect(done.results).toEqual(pool);
  });

  it('a failed call falls back the same way, with the error', async () => {
    server.script.chat.push({ fault: 'http500' });
    const done = await rerankPool(pool, { kb, embedder: noVectors(), calls: new TurnCalls(client), query: 'send_mail', style: 'batch' });
    expect(done.rerank.method).toBe('fused');
    expect(done.rerank.reason).toMatch(/^the re-rank call failed: .+; no vectors for never-embedded$/);
    expect(done.results).toEqual(pool);
  });

  it('per item: one call per candidate; higher scores first, ties in the fused order', async () => {
    const scores = pool.map((_, i) => (i === 1 ? '9' : i === 0 ? '<think>meh</think>2' : '5'));
    server.script.chat.push(...scores.map((text) => ({ text })));
    const calls = new TurnCalls(client);
    const done = await rerankPool(pool, { kb, embedder, calls, query: 'settings', style: 'per_item' });
    expect(done.rerank).toEqual({ method: 'model', style: 'per_item', pool: pool.length });
    expect(calls.calls).toHaveLength(pool.length);
    expect(paths(done.results)).toEqual([pool[1]!.path, ...paths(pool.slice(2)), pool[0]!.path]);
  });

  it('per item: one unreadable score falls back for the whole pool', async () => {
    server.script.chat.push({ text: '8' }, { text: 'Yes, very relevant.' }, ...pool.map(() => ({ text: '1' })));
    const done = await rerankPool(pool, { kb, embedder: noVectors(), calls: new TurnCalls(client), query: 'settings', style: 'per_item' });
    expect(done.rerank).toEqual({ method: 'fused', style: 'per_item', pool: pool.length, reason: "the re-ranker's reply for candidate 2 was not a number from 0 to 10; no vectors for never-embedded" });
    expect(done.results).toEqual(pool);
  });

  it('a turn whose pipeline turns re-ranking on: the rerank call comes before the answer, the seeds follow its order, the trace says which ran', async () => {
    fx.pipelineFile('rr.yaml', 'pipeline:\n  name: rr\n  extends: default\n  settings:\n    retrieval:\n      rerank:\n        enabled: true\n        pool: 10\n');
    const pipeline = fx.pipeline('rr');
    expect(pipeline.settings.retrieval.rerank).toEqual({ enabled: true, style: 'batch', pool: 10 });
    const question = 'load_config send_mail settings';
    const fused = (await searchRound(kb, { mode: 'BM25', queries: [question], retrieval, embedder, limit: 10 })).results;
    server.script.chat.push({ text: `${fused.length}` }, { text: '[Answer:] Done.' });
    const message = await runChatTurn(fx.deps(pipeline), { runId: 'r-rr', repoId: 'fx', conversationId: 'c-rr', question, mode: 'bm25', language: 'en', signal: new AbortController().signal });
    const trace = message.trace!;
    expect(trace.calls!.map((c) => [c.purpose, c.stage])).toEqual([
      ['rerank', 'rerank'],
      ['answer', 'chat'],
    ]);
    expect(trace.rounds![0]!.rerank).toEqual({ method: 'model', style: 'batch', pool: fused.length });
    expect(trace.rounds![0]!.hits.map((h) => h.path)).toEqual([fused.at(-1)!.path, ...paths(fused.slice(0, -1))]);
  });
});
