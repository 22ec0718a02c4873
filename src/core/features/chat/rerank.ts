import type { ChatTraceRerank } from '../../../shared/contract/chat';
import type { SearchResult } from '../../../shared/contract/search';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { Embedder } from '../../knowledge/search/embedder';
import { searchWithMode } from '../../knowledge/search/search';
import type { TurnCalls } from './calls';
import type { SearchRoundResult } from './chatSearch';
import type { PipelineSettings } from './pipeline';
import { fetchNodeTexts, seedsOf } from './retrieve';
import { stripThinking } from './router';
import { CallBudgetExceeded } from './limits';

/*
 * Re-ranking of a round's fused pool (issue #14 item 2; docs/design.md, Re-ranking): the model
 * assigned to the `rerank` stage reads the question with each candidate's
 * path and opening lines and orders them — one batched call that lists candidate numbers, or one
 * call per candidate that gives a relevance score. Its reply is read strictly; a reply that breaks
 * the format, or a failed call, falls back deterministically: by embedding similarity to the query
 * when the index has vectors for the embedder, else the fused order. The trace says which ran.
 */

/** Lines of a candidate's body shown to the re-ranker. */
export const RERANK_SNIPPET_LINES = 12;
/** The top of the per-item relevance scale. */
export const RELEVANCE_MAX = 10;

/** The batched re-ranker's instructions. */
export const RERANK_BATCH_SYSTEM = [
  'You order code search results by how much they help answer a question about a repository.',
  'Reply with one line and nothing else: the candidate numbers, most relevant first, separated by commas, e.g. 3, 1, 2.',
  'Use each number at most once; leave out candidates that do not help.',
].join('\n');

/** The per-item re-ranker's instructions. */
export const RERANK_ITEM_SYSTEM = `You judge whether a piece of code helps answer a question about a repository. Reply with one whole number from 0 (no help) to ${RELEVANCE_MAX} (exactly what is needed) and nothing else.`;

/**
 * Read a batched reply strictly: after thinking blocks, one line of candidate numbers (1..n) separated
 * by commas, at least one, none twice. Returns the 0-based order, or the reason the reply was refused.
 */
export function parseRerankOrder(reply: string, n: number): { order: number[] } | { error: string } {
  const body = stripThinking(reply).text.trim();
  if (body === '') return { error: 'the reply was empty' };
  if (body.includes('\n')) return { error: 'the reply had more than one line' };
  if (!/^\d+(\s*,\s*\d+)*$/.test(body)) return { error: 'the reply was not a list of candidate numbers' };
  const order: number[] = [];
  for (const part of body.split(',')) {
    const k = Number(part.trim());
    if (k < 1 || k > n) return { error: `candidate ${k} does not exist (1–${n})` };
    if (order.includes(k - 1)) return { error: `candidate ${k} was listed twice` };
    order.push(k - 1);
  }
  return { order };
}

/** Read a per-item reply strictly: after thinking blocks, one whole number 0..10; else null. */
export function parseRelevance(reply: string): number | null {
  const body = stripThinking(reply).text.trim();
  if (!/^\d{1,2}$/.test(body)) return null;
  const score = Number(body);
  return score <= RELEVANCE_MAX ? score : null;
}

/** What {@link rerankPool} needs. */
export interface RerankOptions {
  kb: KnowledgeBase;
  embedder: Embedder;
  calls: Pick<TurnCalls, 'complete'>;
  /** The query the pool was searched for. */
  query: string;
  style: ChatTraceRerank['style'];
  signal?: AbortSignal;
}

/** The pool in its new order (scores of the method that ran) and the trace. */
export interface Reranked {
  results: SearchResult[];
  rerank: ChatTraceRerank;
}

/** A candidate as the re-ranker sees it: its path and the opening lines of the body around its best line. */
function snippets(kb: KnowledgeBase, pool: readonly SearchResult[]): string[] {
  const bodies = new Map(fetchNodeTexts(kb, seedsOf(kb, pool), pool.length).map((e) => [e.path, e]));
  return pool.map((r) => {
    const body = bodies.get(r.path);
    const text = body ? body.text.split('\n').slice(0, RERANK_SNIPPET_LINES).join('\n') : '';
    return body ? `${r.path}:${body.startLine}\n\`\`\`\n${text}\n\`\`\`` : r.path;
  });
}

/** Scores 1 → 1/n by position (the best first), so later steps see a falling score. */
const byPosition = (results: readonly SearchResult[]): SearchResult[] => results.map((r, i) => ({ ...r, score: Math.round((1 - i / results.length) * 1000) / 1000 }));

/**
 * Re-rank the pool (best first). The model's order when its replies keep the format; else the
 * embedding fallback or the fused order, with the reason. A stop (abort) is rethrown.
 */
export async function rerankPool(pool: readonly SearchResult[], options: RerankOptions): Promise<Reranked> {
  const base = { style: options.style, pool: pool.length };
  if (pool.length < 2) return { results: [...pool], rerank: { ...base, method: 'fused', reason: 'fewer than two candidates' } };
  let reason: string;
  try {
    const order = options.style === 'batch' ? await batchOrder(pool, options) : await perItemOrder(pool, options);
    if ('order' in order) return { results: byPosition(order.order.map((i) => pool[i]!)), rerank: { ...base, method: 'model' } };
    reason = order.error;
  } catch (error) {
    if (options.signal?.aborted || error instanceof CallBudgetExceeded) throw error;
    reason = `the re-rank call failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  return fallback(pool, options, base, reason);
}

async function batchOrder(pool: readonly SearchResult[], options: RerankOptions): Promise<{ order: number[] } | { error: string }> {
  const listed = snippets(options.kb, pool).map((s, i) => `[${i + 1}] ${s}`);
  const prompt = [`Question: ${options.query}`, '', '## Candidates', ...listed, '', `Order the ${pool.length} candidates by how much they help answer the question.`].join('\n');
  const reply = await options.calls.complete('rerank', prompt, { stage: 'rerank', system: RERANK_BATCH_SYSTEM, signal: options.signal });
  const parsed = parseRerankOrder(reply, pool.length);
  if ('error' in parsed) return { error: `the re-ranker's reply broke the format (${parsed.error})` };
  // Candidates the model left out keep their fused order after the ones it ranked.
  return { order: [...parsed.order, ...pool.map((_, i) => i).filter((i) => !parsed.order.includes(i))] };
}

async function perItemOrder(pool: readonly SearchResult[], options: RerankOptions): Promise<{ order: number[] } | { error: string }> {
  const texts = snippets(options.kb, pool);
  const scores: number[] = [];
  for (const [i, text] of texts.entries()) {
    const reply = await options.calls.complete('rerank', `Question: ${options.query}\n\n## Candidate\n${text}\n\nHow much does this candidate help answer the question (0–${RELEVANCE_MAX})?`, { stage: 'rerank', system: RERANK_ITEM_SYSTEM, signal: options.signal });
    const score = parseRelevance(reply);
    // One unreadable score makes the whole order unreliable: fall back rather than guess.
    if (score === null) return { error: `the re-ranker's reply for candidate ${i + 1} was not a number from 0 to ${RELEVANCE_MAX}` };
    scores.push(score);
  }
  // Higher score first; ties keep the fused order.
  return { order: pool.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b) };
}

/** Embedding similarity to the query when the index has vectors for the embedder, else the fused order. */
async function fallback(pool: readonly SearchResult[], options: RerankOptions, base: Pick<ChatTraceRerank, 'style' | 'pool'>, reason: string): Promise<Reranked> {
  if (options.kb.vectorCount(options.embedder.id) > 0) {
    try {
      const near = await searchWithMode(options.kb, options.query, { mode: 'semantic', limit: Math.max(50, pool.length * 5), embedder: options.embedder, signal: options.signal });
      const similarity = new Map(near.results.map((r) => [r.path, r.score]));
      const order = pool.map((_, i) => i).sort((a, b) => (similarity.get(pool[b]!.path) ?? -1) - (similarity.get(pool[a]!.path) ?? -1) || a - b);
      return { results: byPosition(order.map((i) => pool[i]!)), rerank: { ...base, method: 'embedding', reason } };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      reason = `${reason}; the query could not be embedded (${error instanceof Error ? error.message : String(error)})`;
    }
  } else reason = `${reason}; no vectors for ${options.embedder.id}`;
  return { results: [...pool], rerank: { ...base, method: 'fused', reason } };
}

/** Candidates a round searches: the intent's seeds, or the re-rank pool when re-ranking is on. */
export function searchLimit(settings: PipelineSettings['retrieval']['rerank'], seeds: number): number {
  return settings.enabled ? Math.max(seeds, settings.pool) : seeds;
}

/**
 * A round's re-rank step: when the pipeline turns it on, re-rank the round's fused pool and keep the
 * best `seeds` (in place, with a note when a fallback ran); returns the trace part, or undefined when off.
 */
export async function rerankRound(found: SearchRoundResult, options: Omit<RerankOptions, 'style'> & { settings: PipelineSettings['retrieval']['rerank']; seeds: number }): Promise<ChatTraceRerank | undefined> {
  if (!options.settings.enabled) return undefined;
  const done = await rerankPool(found.results, { ...options, style: options.settings.style });
  found.results = done.results.slice(0, options.seeds);
  if (done.rerank.reason) found.notes.push(`Re-ranking by the rerank model did not run (${done.rerank.reason}): ${done.rerank.method === 'embedding' ? 'the pool was ordered by embedding similarity to the query' : 'the fused order was kept'}.`);
  return done.rerank;
}
