import { beforeAll, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../shared/contract';
import { evaluateChatEvidenceTask } from '../../lab/eval/chatEvidence';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { EventBus } from '../../platform/runtime/events';
import { sharedDefaultEmbedder } from '../../knowledge/search/search';
import { useChatFixture } from '../../testing/chatFixture';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { evidenceBeforeAnswer } from './evidence';
import { excerptOf, packEvidence } from './evidencePack';
import { evidenceCost, expand, expandGraph, fetchNodeTexts, seedsOf, type GraphNode } from './retrieve';
import { searchRound } from './chatSearch';
import type { ConversationStore } from './store';
import { runChatTurn } from './turn';

/*
 * Evidence packed to the budget: the best nodes as bodies, the files past them (nodes past the
 * bodies, search hits past the seeds, neighbours the node cap left out) as excerpts, over a
 * repository of many long invoice modules (twelve bodies are about twice the default budget).
 */

const MODULES = 24;
const QUESTION = 'Where is the invoice total computed?';

/** `billing/invoice_NN.py`: one long function (about 60 lines) that calls the shared rounding helper. */
function invoiceModule(n: number): string {
  const id = String(n).padStart(2, '0');
  const lines = ['from billing.money import round_money', '', '', `def invoice_total_${id}(items, rate):`, `    """The invoice total of batch ${id}: every line times the rate, rounded."""`, '    total = 0'];
  for (let k = 0; k < 56; k++) lines.push(`    total += items[${k}] * rate  # invoice line ${k} of batch ${id}`);
  lines.push('    return round_money(total)', '');
  return lines.join('\n');
}

/** The invoice repository, one commit. */
function invoiceRepo(): TestRepo {
  const repo = createTestRepo({ prefix: 'cra-pack-' });
  repo.write('billing/money.py', 'def round_money(value):\n    """Round an amount to cents."""\n    return round(value, 2)\n');
  for (let n = 1; n <= MODULES; n++) repo.write(`billing/invoice_${String(n).padStart(2, '0')}.py`, invoiceModule(n));
  repo.commit('invoices');
  return repo;
}

const fx = useChatFixture({ repo: invoiceRepo, pipelines: { 'bodies.yaml': 'pipeline:\n  name: bodies\n  extends: default\n  settings:\n    excerpts: {lines: 0}\n' } });
const { deps, pipeline } = fx;
let server: OllamaTestServer;
let repo: TestRepo;
let kb: KnowledgeBase;
let store: ConversationStore;

beforeAll(() => ({ server, repo, kb, store } = fx));

const input = (conversationId: string) => ({ runId: `r-${conversationId}`, repoId: 'fx', conversationId, question: QUESTION, mode: 'bm25' as const, language: 'en', signal: new AbortController().signal });

/** The search hits of the question as graph nodes, best first. */
async function hits(limit: number): Promise<GraphNode[]> {
  const retrieval = pipeline('default').settings.retrieval;
  const found = await searchRound(kb, { mode: 'BM25', queries: [QUESTION], retrieval, embedder: sharedDefaultEmbedder(), limit });
  return seedsOf(kb, found.results);
}

describe('excerpts', () => {
  it('lines around the line that matters, starting a quarter of the window above it, within its chunk', async () => {
    const [best] = await hits(1);
    expect(best!.anchor).not.toBeNull();
    // The search's best line of the long function, and a line deep inside it.
    for (const anchor of [best!.anchor!, 30]) {
      const excerpt = excerptOf(kb, { ...best!, anchor }, 8)!;
      const chunk = kb.getChunkOfFileAt(best!.fileId, anchor)!;
      expect(excerpt.startLine).toBe(Math.max(chunk.startLine, anchor - 2));
      expect(excerpt.endLine - excerpt.startLine + 1).toBe(8);
      const file = repo.git('show', `HEAD:${best!.path}`).split('\n');
      expect(excerpt.text).toBe(file.slice(excerpt.startLine - 1, excerpt.endLine).join('\n'));
    }
    expect(excerptOf(kb, { ...best!, anchor: 30 }, 8)!.startLine).toBe(28);
  });

  it('a node without a line that matters: its first definition', () => {
    const money = kb.getFileByPath('billing/money.py')!;
    const excerpt = excerptOf(kb, { fileId: money.id, path: 'billing/money.py', score: 1, role: 'neighbour', anchor: null, why: [] }, 2)!;
    expect(excerpt).toEqual({ startLine: 1, endLine: 2, text: 'def round_money(value):\n    """Round an amount to cents."""' });
  });
});

describe('graph expansion keeps what the node cap leaves out', () => {
  it('spare: neighbours reached but over the cap, best first, none of them a node', async () => {
    const seeds = await hits(3);
    const plan = { depth: 1, decay: 0.7, maxNodes: 3 };
    const graph = expandGraph(kb, seeds, plan);
    expect(graph.nodes.map((n) => n.path)).toEqual(expand(kb, seeds, plan).map((n) => n.path));
    expect(graph.nodes.every((n) => n.role === 'seed')).toBe(true);
    expect(graph.spare.map((n) => n.path)).toContain('billing/money.py');
    expect(graph.spare.find((n) => n.path === 'billing/money.py')!.score).toBeCloseTo(seeds[0]!.score * 0.7, 5);
    // Room for one neighbour: it is the best of the spare list, which then no longer holds it.
    const roomier = expandGraph(kb, seeds, { ...plan, maxNodes: 4 });
    expect(roomier.nodes.map((n) => n.path)).toContain(graph.spare[0]!.path);
    expect(roomier.spare.map((n) => n.path)).not.toContain(graph.spare[0]!.path);
  });
});

describe('packing the evidence to the budget', () => {
  const excerpts = { lines: 6, body_share: 0.5, extra_hits: 0, extra_neighbours: 0 };

  it('bodies of the best nodes within the body share, every other node and candidate as an excerpt, all within the budget', async () => {
    const all = await hits(20);
    const nodes = all.slice(0, 8);
    const candidates = all.slice(8);
    const packed = packEvidence(kb, { nodes, candidates, bodies: 12, budgetTokens: 2000, excerpts });
    expect(packed.packed).toBe(true);
    const bodies = packed.evidence.filter((e) => !e.excerpt);
    // Bodies: the best nodes, in order, within half the budget; one more would not fit.
    expect(bodies.map((e) => e.path)).toEqual(nodes.slice(0, bodies.length).map((n) => n.path));
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.reduce((n, e) => n + evidenceCost(e), 0)).toBeLessThanOrEqual(1000);
    const nextBody = fetchNodeTexts(kb, nodes, bodies.length + 1).at(-1)!;
    expect(bodies.reduce((n, e) => n + evidenceCost(e), 0) + evidenceCost(nextBody)).toBeGreaterThan(1000);
    // The rest: excerpts of six lines at most, the nodes first, then the candidates, best first.
    const rest = packed.evidence.filter((e) => e.excerpt);
    expect(rest.every((e) => e.endLine - e.startLine < 6)).toBe(true);
    expect(packed.evidence.map((e) => e.path)).toEqual([...nodes, ...candidates].map((n) => n.path).filter((p) => packed.evidence.some((e) => e.path === p)));
    expect(packed.evidence.reduce((n, e) => n + evidenceCost(e), 0)).toBeLessThanOrEqual(2000);
    // Every file of the graph is in it or counted as left out.
    expect(packed.evidence.length + packed.left.length).toBe(all.length);
    expect(rest.some((e) => candidates.some((c) => c.path === e.path))).toBe(true);
  });

  it('excerpts off, or a budget too small for an excerpt of every node: the bodies of the best nodes, as before', async () => {
    const nodes = (await hits(8)).slice(0, 8);
    const bodiesOnly = fetchNodeTexts(kb, nodes, 12);
    const off = packEvidence(kb, { nodes, candidates: [], bodies: 12, budgetTokens: 2000, excerpts: { ...excerpts, lines: 0 } });
    expect(off).toMatchObject({ packed: false, left: [] });
    expect(off.evidence).toEqual(bodiesOnly);
    const tiny = packEvidence(kb, { nodes, candidates: [], bodies: 12, budgetTokens: 60, excerpts });
    expect(tiny.packed).toBe(false);
    expect(tiny.evidence).toEqual(bodiesOnly);
  });
});

describe('a chat turn with the default pipeline', () => {
  it('sends more files than bodies fit, within the budget and with no summarize call; the walk sees the same', async () => {
    server.script.chat.push({ text: '[Answer:] See the invoice modules.' });
    const events = new EventBus();
    const sources: Array<EventPayload<'chat/sources'>> = [];
    events.on('chat/sources', (s) => sources.push(s));
    const message = await runChatTurn(deps(pipeline('default'), { events }), input('pack-turn'));
    const round = message.trace!.rounds![0]!;
    expect(message.trace!.calls!.map((c) => c.purpose)).toEqual(['answer']);
    expect(round).toMatchObject({ budget: 'fits', budgetTokens: 4000 });
    expect(round.evidenceTokens).toBeLessThanOrEqual(4000);
    // Search hits past the intent's 8 seeds are searched and sent, as excerpts.
    expect(round.hits.length).toBeGreaterThan(8);
    expect(round.expansion.seeds).toBe(8);
    const sent = sources[0]!.sources;
    expect(sent.some((s) => s.path === round.hits[8]!.path && s.excerpt === true)).toBe(true);
    expect(round.excerpts).toBe(sent.filter((s) => s.excerpt).length);
    expect(sent.filter((s) => !s.excerpt).length).toBeGreaterThan(0);
    expect(sent.length).toBeGreaterThan(12);
    // The answer model reads the bodies, then the excerpts' lines under a heading of their own.
    const excerpt = sent.find((s) => s.excerpt)!;
    const body = sent.find((s) => !s.excerpt)!;
    const prompt = fx.prompts()[0]!;
    const more = prompt.indexOf('## More files that may matter');
    expect(prompt.indexOf(`[Source: ${body.path}:${body.startLine}-${body.endLine}]`)).toBeGreaterThan(prompt.indexOf('## Evidence'));
    expect(prompt.indexOf(`[Source: ${body.path}:${body.startLine}-${body.endLine}]`)).toBeLessThan(more);
    expect(prompt.indexOf(`[Source: ${excerpt.path}:${excerpt.startLine}-${excerpt.endLine}]`)).toBeGreaterThan(more);
    const walked = await evidenceBeforeAnswer(deps(pipeline('default')), input('pack-walk'));
    expect(walked.evidence.map((e) => `${e.path}:${e.startLine}-${e.endLine}`)).toEqual(sent.map((s) => `${s.path}:${s.startLine}-${s.endLine}`));
  });

  it('with excerpts off the same question sends twelve bodies, over the budget: a summarize call before the answer', async () => {
    server.script.chat.push({ text: 'invoice_total_01 in billing/invoice_01.py sums the lines.' }, { text: '[Answer:] See billing/invoice_01.py.' });
    const message = await runChatTurn(deps(pipeline('bodies')), input('bodies-turn'));
    expect(message.trace!.calls!.map((c) => c.purpose)).toEqual(['evidence-summary', 'answer']);
    expect(message.trace!.rounds![0]!).toMatchObject({ budget: 'summarized', hits: expect.any(Array) });
    expect(message.trace!.rounds![0]!.hits).toHaveLength(8);
    expect(message.trace!.rounds![0]!.excerpts).toBeUndefined();
  });

  it('the evaluation counts a gold file sent only as an excerpt, and one the budget left out', async () => {
    const p = pipeline('default');
    const walked = await evidenceBeforeAnswer(deps(p), input('pack-eval'));
    const excerptOnly = walked.evidence.find((e) => e.excerpt)!.path;
    const task = { id: 't1', task: QUESTION, parent: 'HEAD', gold: [excerptOnly], commit: 'HEAD', date: '2024-01-01' };
    const options = { mode: 'bm25' as const, embedder: sharedDefaultEmbedder() };
    const result = await evaluateChatEvidenceTask({ kb, store, task, options, pipeline: p });
    expect(result.gold[excerptOnly]).toMatchObject({ stage: 'sent', excerpt: true });
    expect(result.excerpts).toBe(walked.evidence.filter((e) => e.excerpt).length);
    // A budget with room for the nodes' excerpts but not for every hit past the seeds: those are lost at the budget.
    const tight = { ...p, settings: { ...p.settings, max_context_tokens: 1800 } };
    const squeezed = await evidenceBeforeAnswer(deps(tight), input('pack-eval-tight'));
    expect(squeezed.left.length).toBeGreaterThan(0);
    const lost = squeezed.left.at(-1)!.path;
    const tightResult = await evaluateChatEvidenceTask({ kb, store, task: { ...task, gold: [lost] }, options, pipeline: tight });
    expect(tightResult.gold[lost]!.stage).toBe('budget');
  });
});
