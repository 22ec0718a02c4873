import type { ChatRoute, ChatSource, ChatTrace } from '../../shared/contract/chat';
import type { Reason } from '../../shared/contract/reasons';
import type { SearchResult } from '../../shared/contract/search';
import type { KnowledgeBase } from '../kb/knowledgeBase';
import { throwIfAborted } from '../runtime/runs';
import type { Embedder } from '../search/embedder';
import { searchWithMode } from '../search/search';
import type { IntentPlan } from './router';

/*
 * Retrieval for one chat turn (seeds: rag-for-code-pipeline §4–6): the route's search (our
 * model-free search; vector modes only where vectors exist), graph expansion right after it through
 * the KnowledgeBase (imports both ways, co-change), then the bodies of the best nodes by identity
 * within a token budget. Never an error for missing vectors: the trace says what ran instead.
 */

/** A source with the body sent to the answer model. */
export interface ChatEvidence extends ChatSource {
  text: string;
}

/** What a turn's retrieval produced: evidence (best first) and its part of the trace. */
export interface ChatRetrieval {
  evidence: ChatEvidence[];
  trace: Omit<ChatTrace, 'route' | 'intent'>;
}

/** Options of {@link retrieveForChat}. */
export interface ChatRetrievalOptions {
  embedder: Embedder;
  /** Estimated tokens of evidence (bodies) at most. */
  budgetTokens: number;
  signal?: AbortSignal;
}

/** Evidence tokens a turn may send by default: room for a small model's answer in an 8k window. */
export const DEFAULT_EVIDENCE_TOKENS = 4000;
/** Lines of one body at most; a longer chunk is cut to a window around the line that matters. */
export const MAX_BODY_LINES = 80;
/** Neighbours taken per node and edge kind: a hub file must not fill the walk by itself. */
const NEIGHBOURS_PER_EDGE = 6;
/** Co-change pairs below this many commits are noise for a question. */
const MIN_CO_CHANGES = 2;

/** Rough tokens of a text (≈ 4 characters a token for code). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

interface Node {
  fileId: number;
  path: string;
  score: number;
  role: 'seed' | 'neighbour';
  /** The line that matters (the search's best line); null for neighbours. */
  anchor: number | null;
  why: Reason[];
}

/** The search mode a route runs, and the note when vectors are missing. */
function searchModeOf(route: ChatRoute, vectors: number, embedderId: string): { mode: ChatTrace['searchMode']; note?: string } {
  if (route.mode === 'DIRECT') return { mode: 'none' };
  if (route.mode === 'BM25') return { mode: 'keyword' };
  if (vectors === 0) {
    return { mode: 'keyword', note: `${route.mode} needs vectors, and this index has none for ${embedderId}: keyword search ran instead (Embed now on the Repositories page, or cra embed).` };
  }
  if (route.mode === 'SEMANTIC') return { mode: 'semantic' };
  if (route.mode === 'SEMANTIC_RERANK') return { mode: 'hybrid', note: 'SEMANTIC_RERANK ran as hybrid search (vectors fused with keyword ranks); a reranked vector pool is not built yet.' };
  return { mode: 'hybrid' };
}

/** Run a turn's retrieval: search, graph expansion, bodies within the budget. */
export async function retrieveForChat(kb: KnowledgeBase, route: ChatRoute, plan: IntentPlan, options: ChatRetrievalOptions): Promise<ChatRetrieval> {
  const vectors = route.mode === 'BM25' || route.mode === 'DIRECT' ? 0 : kb.vectorCount(options.embedder.id);
  const { mode, note } = searchModeOf(route, vectors, options.embedder.id);
  const notes = note ? [note] : [];
  const empty = { evidence: [], trace: { searchMode: mode, notes, expansion: { seeds: 0, added: 0, depth: plan.depth, decay: plan.decay }, evidenceTokens: 0, budgetTokens: options.budgetTokens } };
  if (mode === 'none') return empty;
  const outcome = await searchWithMode(kb, route.query, { mode: mode, limit: plan.seeds, embedder: options.embedder, signal: options.signal });
  throwIfAborted(options.signal);
  if (outcome.results.length === 0) {
    notes.push(`No file matched “${route.query}”.`);
    return empty;
  }
  const nodes = expand(kb, seedsOf(kb, outcome.results), plan);
  const seeds = nodes.filter((n) => n.role === 'seed').length;
  const { evidence, tokens, left } = fetchBodies(kb, nodes, options.budgetTokens);
  if (left > 0) notes.push(`${left} more file${left === 1 ? '' : 's'} left out by the evidence budget (${options.budgetTokens} tokens).`);
  return { evidence, trace: { searchMode: mode, notes, expansion: { seeds, added: nodes.length - seeds, depth: plan.depth, decay: plan.decay }, evidenceTokens: tokens, budgetTokens: options.budgetTokens } };
}

function seedsOf(kb: KnowledgeBase, results: readonly SearchResult[]): Node[] {
  const out: Node[] = [];
  for (const [i, r] of results.entries()) {
    const file = kb.getFileByPath(r.path);
    if (!file) continue;
    const anchor = r.bestLine ?? r.symbols[0]?.startLine ?? null;
    out.push({ fileId: file.id, path: r.path, score: r.score, role: 'seed', anchor, why: [{ kind: 'seed', detail: { rank: i + 1 } }, ...r.why] });
  }
  return out;
}

/**
 * Bounded walk from the seeds over imports (both directions) and co-change: depth and decay from
 * the intent, neighbour score = parent × decay, at most `maxNodes` nodes in all (seeds first; each
 * level adds its best-scored neighbours while there is room). A file reached twice keeps its best
 * score and gains the reason.
 */
export function expand(kb: KnowledgeBase, seeds: Node[], plan: Pick<IntentPlan, 'depth' | 'decay' | 'maxNodes'>): Node[] {
  const nodes = new Map<number, Node>();
  for (const seed of seeds.slice(0, plan.maxNodes)) nodes.set(seed.fileId, seed);
  let frontier = [...nodes.values()];
  for (let level = 1; level <= plan.depth && frontier.length > 0; level++) {
    const found = new Map<number, Node>();
    for (const parent of frontier) {
      const score = parent.score * plan.decay;
      const reach = (fileId: number, path: string, reason: Reason) => {
        const known = nodes.get(fileId);
        if (known) {
          if (known.role === 'neighbour' && !known.why.some((w) => w.kind === reason.kind && JSON.stringify(w.detail) === JSON.stringify(reason.detail))) known.why.push(reason);
          return;
        }
        const seen = found.get(fileId);
        if (!seen) found.set(fileId, { fileId, path, score, role: 'neighbour', anchor: null, why: [reason] });
        else {
          seen.score = Math.max(seen.score, score);
          seen.why.push(reason);
        }
      };
      const deps = kb.getDependencies(parent.fileId, 'both');
      for (const edge of deps.filter((d) => d.direction === 'outgoing').slice(0, NEIGHBOURS_PER_EDGE)) reach(edge.fileId, edge.path, { kind: 'imported-by', detail: { path: parent.path } });
      for (const edge of deps.filter((d) => d.direction === 'incoming').slice(0, NEIGHBOURS_PER_EDGE)) reach(edge.fileId, edge.path, { kind: 'imports', detail: { path: parent.path } });
      for (const pair of kb.getCoChangeNeighbors(parent.fileId, MIN_CO_CHANGES).slice(0, NEIGHBOURS_PER_EDGE)) {
        reach(pair.fileId, pair.path, { kind: 'co-change', detail: { path: parent.path, commits: pair.count } });
      }
    }
    const room = plan.maxNodes - nodes.size;
    const added = [...found.values()].sort((a, b) => b.score - a.score || a.path.localeCompare(b.path)).slice(0, Math.max(0, room));
    for (const node of added) nodes.set(node.fileId, node);
    frontier = added;
  }
  return [...nodes.values()].sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
}

/** The body of a node: the chunk holding its anchor line (else its first chunk), cut to a window. */
function bodyOf(kb: KnowledgeBase, node: Node): { startLine: number; endLine: number; text: string } | undefined {
  const chunks = kb.getChunksOfFile(node.fileId);
  if (chunks.length === 0) return undefined;
  const anchor = node.anchor;
  const chunk = (anchor !== null ? chunks.find((c) => c.startLine <= anchor && anchor <= c.endLine) : undefined) ?? chunks[0]!;
  const lines = chunk.text.split('\n');
  if (lines.length <= MAX_BODY_LINES) return { startLine: chunk.startLine, endLine: chunk.startLine + lines.length - 1, text: chunk.text };
  const at = anchor !== null && anchor >= chunk.startLine ? anchor - chunk.startLine : 0;
  const from = Math.max(0, Math.min(at - Math.floor(MAX_BODY_LINES / 4), lines.length - MAX_BODY_LINES));
  return { startLine: chunk.startLine + from, endLine: chunk.startLine + from + MAX_BODY_LINES - 1, text: lines.slice(from, from + MAX_BODY_LINES).join('\n') };
}

/** Bodies of the best nodes while they fit the budget; the rest are counted, not sent. */
function fetchBodies(kb: KnowledgeBase, nodes: readonly Node[], budget: number): { evidence: ChatEvidence[]; tokens: number; left: number } {
  const evidence: ChatEvidence[] = [];
  let tokens = 0;
  let left = 0;
  for (const node of nodes) {
    const body = bodyOf(kb, node);
    if (!body) continue;
    const cost = estimateTokens(body.text) + estimateTokens(node.path) + 8;
    if (tokens + cost > budget) {
      left++;
      continue;
    }
    tokens += cost;
    evidence.push({ path: node.path, startLine: body.startLine, endLine: body.endLine, score: Math.round(node.score * 1000) / 1000, role: node.role, why: node.why, text: body.text });
  }
  return { evidence, tokens, left };
}
