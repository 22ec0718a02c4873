import type { ChatSource } from '../../../shared/contract/chat';
import type { Reason } from '../../../shared/contract/reasons';
import type { SearchResult } from '../../../shared/contract/search';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { roundScore } from '../../knowledge/search/details';
import { comparePaths } from './pathOrder';
import { EDGE_KINDS, type EdgeKind } from './pipeline';
import type { IntentPlan } from './router';
import { estimateTokens } from '../../../shared/tokens';

/*
 * The evidence graph of a chat turn (docs/design.md, Graph expansion; Evidence and its budget):
 * search hits become seeds, graph expansion right after retrieval walks the
 * KnowledgeBase (calls both ways, imports both ways, co-change) within an edge allow-list, and the
 * bodies of the best nodes are fetched by identity. Searching itself is in search.ts.
 */

/** A source with the body sent to the answer model. */
export interface ChatEvidence extends ChatSource {
  text: string;
}

/** Evidence tokens a turn may send by default: room for a small model's answer in an 8k window. */
export const DEFAULT_EVIDENCE_TOKENS = 4000;
/** Lines of one body at most; a longer chunk is cut to a window around the line that matters. */
export const MAX_BODY_LINES = 80;
/** Neighbours taken per node and edge kind: a hub file must not fill the walk by itself. */
const NEIGHBOURS_PER_EDGE = 6;
/** Co-change pairs below this many commits are noise for a question. */
const MIN_CO_CHANGES = 2;


/** A file in the evidence graph: a search hit (seed) or a neighbour reached from one. */
export interface GraphNode {
  fileId: number;
  path: string;
  score: number;
  role: 'seed' | 'neighbour';
  /** The line that matters (the search's best line); null for neighbours. */
  anchor: number | null;
  why: Reason[];
}

/** Search results as graph seeds (files still in the index), with the line that matters. */
export function seedsOf(kb: KnowledgeBase, results: readonly SearchResult[]): GraphNode[] {
  const out: GraphNode[] = [];
  for (const [i, r] of results.entries()) {
    const file = kb.getFileByPath(r.path);
    if (!file) continue;
    const anchor = r.bestLine ?? r.symbols[0]?.startLine ?? null;
    out.push({ fileId: file.id, path: r.path, score: r.score, role: 'seed', anchor, why: [{ kind: 'seed', detail: { rank: i + 1 } }, ...r.why] });
  }
  return out;
}

/** How graph expansion walks: depth, decay per hop, node cap, and the edge kinds it may follow. */
export interface ExpansionPlan extends Pick<IntentPlan, 'depth' | 'decay' | 'maxNodes'> {
  /** Edge kinds allowed (default: all of {@link EDGE_KINDS}). */
  edges?: readonly EdgeKind[];
}

/** Symbols of a node whose call edges are followed: the ones around its anchor, else its first few. */
const SYMBOLS_PER_NODE = 3;

/**
 * Bounded walk from the seeds over the allowed edges — callees (`calls`) and callers (`called-by`)
 * of the node's symbols, files it imports (`imports`) and files importing it (`imported-by`),
 * co-change — with depth and decay from the intent, neighbour score = parent × decay, at most
 * `maxNodes` nodes in all (seeds first; each level adds its best-scored neighbours while there is
 * room). A file reached twice keeps its best score and gains the reason. A neighbour reached over a
 * call edge is anchored at the symbol on the other end, so its body is fetched by identity.
 */
export function expand(kb: KnowledgeBase, seeds: GraphNode[], plan: ExpansionPlan): GraphNode[] {
  return expandGraph(kb, seeds, plan).nodes;
}

/** The evidence graph after expansion: the nodes within the cap, and the neighbours the cap left out. */
export interface ExpandedGraph {
  /** Seeds and neighbours within `maxNodes`, best first. */
  nodes: GraphNode[];
  /** Neighbours the walk reached but the node cap left out (not walked further), best first. */
  spare: GraphNode[];
}

/** {@link expand}, keeping the neighbours the node cap left out (`spare`). */
export function expandGraph(kb: KnowledgeBase, seeds: GraphNode[], plan: ExpansionPlan): ExpandedGraph {
  const allowed = new Set<EdgeKind>(plan.edges ?? EDGE_KINDS);
  const nodes = new Map<number, GraphNode>();
  const spare = new Map<number, GraphNode>();
  for (const seed of seeds.slice(0, plan.maxNodes)) nodes.set(seed.fileId, seed);
  let frontier = [...nodes.values()];
  for (let level = 1; level <= plan.depth && frontier.length > 0; level++) {
    const found = new Map<number, GraphNode>();
    for (const parent of frontier) {
      const score = parent.score * plan.decay;
      const reach = ({ fileId, path, reason, anchor }: Reach) => {
        if (fileId === parent.fileId) return;
        const known = nodes.get(fileId);
        if (known) {
          if (known.role === 'neighbour' && !known.why.some((w) => reasonKey(w) === reasonKey(reason))) known.why.push(reason);
          return;
        }
        const seen = found.get(fileId);
        if (!seen) found.set(fileId, { fileId, path, score, role: 'neighbour', anchor, why: [reason] });
        else {
          seen.score = Math.max(seen.score, score);
          seen.anchor ??= anchor;
          if (!seen.why.some((w) => reasonKey(w) === reasonKey(reason))) seen.why.push(reason);
        }
      };
      neighboursOf(kb, parent, allowed).forEach(reach);
    }
    const room = Math.max(0, plan.maxNodes - nodes.size);
    const ranked = [...found.values()].sort(byScore);
    const added = ranked.slice(0, room);
    for (const node of added) {
      nodes.set(node.fileId, node);
      spare.delete(node.fileId);
    }
    for (const node of ranked.slice(room)) if ((spare.get(node.fileId)?.score ?? -Infinity) < node.score) spare.set(node.fileId, node);
    frontier = added;
  }
  return { nodes: [...nodes.values()].sort(byScore), spare: [...spare.values()].sort(byScore) };
}

/** Best score first, then by path (a stable order for ties). */
function byScore(a: GraphNode, b: GraphNode): number {
  return b.score - a.score || comparePaths(a.path, b.path);
}

/** One edge of a walk: the file reached, why, and the line to anchor it at. */
interface Reach {
  fileId: number;
  path: string;
  reason: Reason;
  anchor: number | null;
}

/** The edges from a node over the allowed kinds, in the order the walk takes them. */
function neighboursOf(kb: KnowledgeBase, parent: GraphNode, allowed: Set<EdgeKind>): Reach[] {
  const out: Reach[] = [];
  const reach = (fileId: number, path: string, reason: Reason, anchor: number | null = null) => out.push({ fileId, path, reason, anchor });
  if (allowed.has('calls') || allowed.has('called-by')) walkCalls(kb, parent, allowed, reach);
  if (allowed.has('imports') || allowed.has('imported-by')) {
    const deps = kb.getDependencies(parent.fileId, 'both');
    if (allowed.has('imports')) for (const edge of deps.filter((d) => d.direction === 'outgoing').slice(0, NEIGHBOURS_PER_EDGE)) reach(edge.fileId, edge.path, { kind: 'imported-by', detail: { path: parent.path } });
    if (allowed.has('imported-by')) for (const edge of deps.filter((d) => d.direction === 'incoming').slice(0, NEIGHBOURS_PER_EDGE)) reach(edge.fileId, edge.path, { kind: 'imports', detail: { path: parent.path } });
  }
  if (allowed.has('co-change')) {
    for (const pair of kb.getCoChangeNeighbors(parent.fileId, MIN_CO_CHANGES).slice(0, NEIGHBOURS_PER_EDGE)) {
      reach(pair.fileId, pair.path, { kind: 'co-change', detail: { path: parent.path, commits: pair.count } });
    }
  }
  return out;
}

function reasonKey(reason: Reason): string {
  return `${reason.kind}:${JSON.stringify(reason.detail)}`;
}

/** Callees and callers of the node's symbols (those around its anchor first) in other files. */
function walkCalls(kb: KnowledgeBase, parent: GraphNode, allowed: Set<EdgeKind>, reach: (fileId: number, path: string, reason: Reason, anchor: number | null) => void): void {
  for (const symbol of kb.getSymbolsAround(parent.fileId, parent.anchor, SYMBOLS_PER_NODE)) {
    let callees = 0;
    let callers = 0;
    for (const n of kb.getSymbolNeighbors(symbol.id, 'both', ['call', 'attribute_call'])) {
      if (n.direction === 'outgoing' && allowed.has('calls') && n.symbol && callees < NEIGHBOURS_PER_EDGE) {
        callees++;
        reach(n.symbol.fileId, n.path, { kind: 'symbol-link', detail: { symbol: symbol.qualifiedName, direction: 'called-by' } }, n.symbol.startLine);
      } else if (n.direction === 'incoming' && allowed.has('called-by') && callers < NEIGHBOURS_PER_EDGE) {
        const file = n.symbol ? { id: n.symbol.fileId } : kb.getFileByPath(n.path);
        if (!file) continue;
        callers++;
        reach(file.id, n.path, { kind: 'symbol-link', detail: { symbol: symbol.qualifiedName, direction: 'calls' } }, n.symbol?.startLine ?? n.line);
      }
    }
  }
}

/** The edge kind a neighbour's reason stands for (for the trace's per-edge counts). */
export function edgeOf(reason: Reason): EdgeKind | undefined {
  if (reason.kind === 'symbol-link') return reason.detail.direction === 'called-by' ? 'calls' : 'called-by';
  if (reason.kind === 'imported-by') return 'imports';
  if (reason.kind === 'imports') return 'imported-by';
  if (reason.kind === 'co-change') return 'co-change';
  return undefined;
}

/** The body of a node: the chunk holding its anchor line (else its first chunk), cut to a window. */
export function bodyOf(kb: KnowledgeBase, node: GraphNode): { startLine: number; endLine: number; text: string } | undefined {
  const anchor = node.anchor;
  const chunk = kb.getChunkOfFileAt(node.fileId, anchor);
  if (!chunk) return undefined;
  const lines = chunk.text.split('\n');
  if (lines.length <= MAX_BODY_LINES) return { startLine: chunk.startLine, endLine: chunk.startLine + lines.length - 1, text: chunk.text };
  const at = anchor !== null && anchor >= chunk.startLine ? anchor - chunk.startLine : 0;
  const from = Math.max(0, Math.min(at - Math.floor(MAX_BODY_LINES / 4), lines.length - MAX_BODY_LINES));
  return { startLine: chunk.startLine + from, endLine: chunk.startLine + from + MAX_BODY_LINES - 1, text: lines.slice(from, from + MAX_BODY_LINES).join('\n') };
}

/** Estimated tokens of one piece of evidence as the answer prompt shows it. */
export function evidenceCost(e: Pick<ChatEvidence, 'path' | 'text'>): number {
  return estimateTokens(e.text) + estimateTokens(e.path) + 8;
}

/** Targeted fetch: the bodies of the best `topN` nodes, by identity (file and anchor line). */
export function fetchNodeTexts(kb: KnowledgeBase, nodes: readonly GraphNode[], topN: number): ChatEvidence[] {
  const evidence: ChatEvidence[] = [];
  for (const node of nodes) {
    if (evidence.length >= topN) break;
    const body = bodyOf(kb, node);
    if (!body) continue;
    evidence.push({ path: node.path, startLine: body.startLine, endLine: body.endLine, score: roundScore(node.score, 3), role: node.role, why: node.why, text: body.text });
  }
  return evidence;
}

/** The best pieces of evidence while they fit the budget; the rest are counted, not sent. */
export function trimEvidence(evidence: readonly ChatEvidence[], budget: number): { evidence: ChatEvidence[]; tokens: number; left: number } {
  const kept: ChatEvidence[] = [];
  let tokens = 0;
  let left = 0;
  for (const e of evidence) {
    const cost = evidenceCost(e);
    if (tokens + cost > budget) {
      left++;
      continue;
    }
    tokens += cost;
    kept.push(e);
  }
  return { evidence: kept, tokens, left };
}

/**
 * Evidence of an earlier round and a new one, without repeating the same lines (the earlier first).
 * A body takes the place of an earlier excerpt of its lines: a follow-up that asked for the file gets it.
 */
export function mergeEvidence(earlier: readonly ChatEvidence[], later: readonly ChatEvidence[]): ChatEvidence[] {
  const out = [...earlier];
  for (const e of later) {
    const at = out.findIndex((o) => o.path === e.path && o.startLine <= e.endLine && e.startLine <= o.endLine);
    if (at < 0) out.push(e);
    else if (out[at]!.excerpt && !e.excerpt) out[at] = e;
  }
  return out;
}
