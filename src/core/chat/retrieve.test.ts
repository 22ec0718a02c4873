import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRoute } from '../../shared/contract/chat';
import { KnowledgeBase } from '../kb/knowledgeBase';
import { repoPaths } from '../repos/registry';
import { createChatRepo } from '../testing/chatRepo';
import type { TestRepo } from '../testing/gitRepo';
import { createTempCore } from '../testing/tempCore';
import { sharedDefaultEmbedder } from '../search/search';
import { expand, retrieveForChat } from './retrieve';
import { detectIntent, INTENT_PLANS } from './router';

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

const route = (mode: ChatRoute['mode'], query: string): ChatRoute => ({ mode, query, source: 'model', thinking: false });
const options = { embedder: sharedDefaultEmbedder(), budgetTokens: 4000 };

describe('retrieval for chat', () => {
  it('BM25: the search hit first, with its body around the best line, then graph neighbours with parent × decay', async () => {
    const plan = detectIntent('Where is load_config?');
    const { evidence, trace } = await retrieveForChat(kb, route('BM25', 'load_config'), plan, options);
    expect(trace.searchMode).toBe('keyword');
    expect(trace.notes).toEqual([]);
    const config = evidence.find((e) => e.path === 'config.py')!;
    expect(config).toMatchObject({ role: 'seed', why: expect.arrayContaining([{ kind: 'seed', detail: { rank: expect.any(Number) } }]) });
    expect(config.text).toContain('def load_config(path):');
    expect(config.startLine).toBeLessThanOrEqual(4);
    expect(config.endLine).toBeGreaterThanOrEqual(7);
    // Co-change (3 commits) brings the document even though nothing of the query is in it.
    const doc = evidence.find((e) => e.path === 'docs/settings.md')!;
    expect(doc).toMatchObject({ role: 'neighbour', why: [{ kind: 'co-change', detail: { path: 'config.py', commits: 3 } }] });
    expect(doc.score).toBeCloseTo(config.score * plan.decay, 2);
    expect(evidence.some((e) => e.path === 'mailer.py')).toBe(false);
    expect(trace.expansion.added).toBeGreaterThan(0);
  });

  it('vector modes with no vectors degrade to keyword search and say so in the trace, never an error', async () => {
    for (const mode of ['SEMANTIC', 'SEMANTIC_RERANK', 'HYBRID'] as const) {
      const { evidence, trace } = await retrieveForChat(kb, route(mode, 'load_config'), detectIntent('x'), options);
      expect(trace.searchMode).toBe('keyword');
      expect(trace.notes[0]).toMatch(new RegExp(`^${mode} needs vectors, .* keyword search ran instead`));
      expect(evidence[0]?.path).toBe('config.py');
    }
  });

  it('DIRECT retrieves nothing', async () => {
    const { evidence, trace } = await retrieveForChat(kb, route('DIRECT', 'what is JSON?'), detectIntent('x'), options);
    expect(evidence).toEqual([]);
    expect(trace.searchMode).toBe('none');
  });

  it('keeps within the token budget and counts what it left out', async () => {
    const { evidence, trace } = await retrieveForChat(kb, route('BM25', 'load_config settings'), detectIntent('x'), { ...options, budgetTokens: 60 });
    expect(trace.evidenceTokens).toBeLessThanOrEqual(60);
    expect(evidence.length).toBeGreaterThanOrEqual(1);
    expect(trace.notes.join(' ')).toMatch(/left out by the evidence budget \(60 tokens\)/);
  });

  it('graph expansion is bounded by the node count and the depth', () => {
    const config = kb.getFileByPath('config.py')!;
    const seed = { fileId: config.id, path: 'config.py', score: 1, role: 'seed' as const, anchor: 4, why: [] };
    expect(expand(kb, [seed], { depth: 1, decay: 0.5, maxNodes: 1 }).map((n) => n.path)).toEqual(['config.py']);
    const none = expand(kb, [seed], { depth: 0, decay: 0.5, maxNodes: 10 });
    expect(none).toHaveLength(1);
    const one = expand(kb, [seed], { ...INTENT_PLANS.SEARCH, decay: 0.5 });
    expect(one.map((n) => [n.path, n.score])).toEqual(expect.arrayContaining([['app.py', 0.5], ['docs/settings.md', 0.5]]));
    expect(one.find((n) => n.path === 'app.py')?.why).toEqual([{ kind: 'imports', detail: { path: 'config.py' } }]);
  });
});
