import { beforeAll, describe, expect, it } from 'vitest';
import type { RouteMode } from '../../../shared/contract/chat';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { useChatFixture } from '../../testing/chatFixture';
import { sharedDefaultEmbedder } from '../../knowledge/search/search';
import { searchRound } from './chatSearch';
import { pipelineSettingsSchema } from './pipeline';
import { edgeOf, expand, fetchNodeTexts, mergeEvidence, seedsOf, trimEvidence } from './retrieve';
import { detectIntent, INTENT_PLANS } from './router';

const fx = useChatFixture();
let kb: KnowledgeBase;

beforeAll(() => ({ kb } = fx));

const retrieval = pipelineSettingsSchema.parse({ entry_step_id: 'x' }).retrieval;
const embedder = sharedDefaultEmbedder();

/** Search, expand and fetch as a turn's first round does. */
async function evidenceFor(mode: RouteMode, query: string, question = 'Where is it?') {
  const plan = detectIntent(question);
  const found = await searchRound(kb, { mode, queries: [query], retrieval, embedder, limit: plan.seeds });
  const nodes = expand(kb, seedsOf(kb, found.results), plan);
  return { plan, found, nodes, evidence: fetchNodeTexts(kb, nodes, 12) };
}

describe('retrieval for chat', () => {
  it('BM25: the search hit first, with its body around the best line, then graph neighbours with parent × decay', async () => {
    const { plan, found, evidence } = await evidenceFor('BM25', 'load_config', 'Where is load_config?');
    expect(found.searchMode).toBe('keyword');
    expect(found.notes).toEqual([]);
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
  });

  it('vector modes with no vectors degrade to keyword search and say so, never an error', async () => {
    for (const mode of ['SEMANTIC', 'SEMANTIC_RERANK', 'HYBRID'] as const) {
      const { found, evidence } = await evidenceFor(mode, 'load_config');
      expect(found.searchMode).toBe('keyword');
      expect(found.notes[0]).toMatch(new RegExp(`^${mode} needs vectors, .* keyword search ran instead`));
      expect(evidence[0]?.path).toBe('config.py');
    }
  });

  it('DIRECT searches nothing', async () => {
    const found = await searchRound(kb, { mode: 'DIRECT', queries: ['what is JSON?'], retrieval, embedder, limit: 8 });
    expect(found).toMatchObject({ results: [], searchMode: 'none' });
  });

  it('several phrasings are searched each and fused', async () => {
    const one = await searchRound(kb, { mode: 'BM25', queries: ['send_mail'], retrieval, embedder, limit: 8 });
    expect(one.results.map((r) => r.path)).not.toContain('config.py');
    const two = await searchRound(kb, { mode: 'BM25', queries: ['send_mail', 'load_config'], retrieval, embedder, limit: 8 });
    expect(two.results.map((r) => r.path)).toEqual(expect.arrayContaining(['mailer.py', 'config.py']));
    expect(two.results[0]!.score).toBe(1);
  });

  it('trimming keeps the best evidence within the budget and counts what it left out', async () => {
    const { evidence } = await evidenceFor('BM25', 'load_config settings');
    const { evidence: kept, tokens, left } = trimEvidence(evidence, 60);
    expect(tokens).toBeLessThanOrEqual(60);
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(left).toBe(evidence.length - kept.length);
    expect(left).toBeGreaterThan(0);
  });

  it('graph expansion is bounded by the node count, the depth and the edge allow-list', () => {
    const config = kb.getFileByPath('config.py')!;
    const seed = { fileId: config.id, path: 'config.py', score: 1, role: 'seed' as const, anchor: 4, why: [] };
    expect(expand(kb, [seed], { depth: 1, decay: 0.5, maxNodes: 1 }).map((n) => n.path)).toEqual(['config.py']);
    expect(expand(kb, [seed], { depth: 0, decay: 0.5, maxNodes: 10 })).toHaveLength(1);
    const one = expand(kb, [seed], { ...INTENT_PLANS.SEARCH, decay: 0.5 });
    expect(one.map((n) => [n.path, n.score])).toEqual(expect.arrayContaining([['app.py', 0.5], ['docs/settings.md', 0.5]]));
    // app.py both imports config.py and calls load_config from main().
    expect(one.find((n) => n.path === 'app.py')?.why).toEqual(
      expect.arrayContaining([
        { kind: 'imports', detail: { path: 'config.py' } },
        { kind: 'symbol-link', detail: { symbol: 'load_config', direction: 'calls' } },
      ]),
    );
    const coChangeOnly = expand(kb, [seed], { ...INTENT_PLANS.SEARCH, edges: ['co-change'] });
    expect(coChangeOnly.map((n) => n.path).sort()).toEqual(['config.py', 'docs/settings.md']);
    const callersOnly = expand(kb, [seed], { ...INTENT_PLANS.SEARCH, edges: ['called-by'] });
    const caller = callersOnly.find((n) => n.path === 'app.py')!;
    expect(caller.why.map(edgeOf)).toEqual(['called-by']);
    // The caller is anchored at main(), so its body is fetched by identity.
    expect(caller.anchor).toBe(4);
    expect(fetchNodeTexts(kb, callersOnly, 5).find((e) => e.path === 'app.py')!.text).toContain('def main():');
  });

  it('a callee is reached from its caller over calls', () => {
    const app = kb.getFileByPath('app.py')!;
    const seed = { fileId: app.id, path: 'app.py', score: 1, role: 'seed' as const, anchor: 5, why: [] };
    const nodes = expand(kb, [seed], { depth: 1, decay: 0.7, maxNodes: 5, edges: ['calls'] });
    expect(nodes.map((n) => [n.path, n.why.map(edgeOf)])).toEqual([
      ['app.py', []],
      ['config.py', ['calls']],
    ]);
    expect(nodes[1]!.anchor).toBe(4);
  });

  it('evidence of a later round joins without repeating lines', () => {
    const a = { path: 'a.py', startLine: 1, endLine: 10, score: 1, role: 'seed' as const, why: [], text: 'x' };
    const b = { ...a, startLine: 5, endLine: 12 };
    const c = { ...a, path: 'c.py' };
    expect(mergeEvidence([a], [b, c]).map((e) => e.path)).toEqual(['a.py', 'c.py']);
  });

  it('a body of a later round takes the place of an earlier excerpt of its lines; an excerpt never replaces a body', () => {
    const excerpt = { path: 'a.py', startLine: 6, endLine: 11, score: 1, role: 'seed' as const, excerpt: true, why: [], text: 'six lines' };
    const other = { ...excerpt, path: 'b.py' };
    const body = { path: 'a.py', startLine: 1, endLine: 40, score: 2, role: 'seed' as const, why: [], text: 'the body' };
    expect(mergeEvidence([excerpt, other], [body]).map((e) => [e.path, e.text])).toEqual([
      ['a.py', 'the body'],
      ['b.py', 'six lines'],
    ]);
    expect(mergeEvidence([body], [excerpt])).toEqual([body]);
  });
});
