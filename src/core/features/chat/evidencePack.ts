import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { roundScore } from '../../knowledge/search/details';
import type { PipelineSettings } from './pipeline';
import { bodyOf, evidenceCost, fetchNodeTexts, type ChatEvidence, type GraphNode } from './retrieve';

/*
 * The evidence of a round within the budget (docs/design.md, Evidence and its budget): the best
 * nodes of the evidence graph go as bodies, and the files past
 * them — the other nodes, search hits past the seeds, neighbours the node cap left out — as
 * excerpts, a few lines around the line that matters, while the whole fits `max_context_tokens`.
 * More files reach the answer model in the same budget, and it can ask for a body it needs
 * ([Requesting data on:]). Excerpts off (`excerpts.lines: 0`), or a budget too small for an excerpt
 * of every node: the bodies of the best nodes, as before, and the budget step condenses what is over.
 */

/** The settings of the pack (the pipeline's `excerpts`). */
export type ExcerptSettings = PipelineSettings['excerpts'];

/** What a round packs: the expanded nodes (best first) and the files past them (best first). */
export interface PackInput {
  nodes: readonly GraphNode[];
  /** Files past the nodes, sent as excerpts at most: hits past the seeds, then spare neighbours. */
  candidates: readonly GraphNode[];
  /** Bodies at most (`node_text_fetch_top_n`). */
  bodies: number;
  budgetTokens: number;
  excerpts: ExcerptSettings;
}

/** The pieces of a round and the nodes the budget left out. */
export interface PackedEvidence {
  evidence: ChatEvidence[];
  /** Nodes and candidates with no piece in the evidence: the budget held no room for them. */
  left: GraphNode[];
  /** Whether bodies and excerpts were packed to the budget (false: bodies only, as before). */
  packed: boolean;
}

/**
 * A few lines of a node around the line that matters: the search's best line for a hit, the symbol
 * on the other end for a neighbour reached over a call, else the file's first definition. The
 * window starts a quarter of its lines above that line (the definition or condition just before it),
 * within the chunk holding it; blank lines at its ends are dropped.
 */
export function excerptOf(kb: KnowledgeBase, node: GraphNode, lines: number): { startLine: number; endLine: number; text: string } | undefined {
  const anchor = node.anchor ?? kb.getSymbolsAround(node.fileId, null, 1)[0]?.startLine ?? null;
  const chunk = kb.getChunkOfFileAt(node.fileId, anchor);
  if (!chunk) return undefined;
  const all = chunk.text.split('\n');
  const at = anchor !== null && anchor >= chunk.startLine ? Math.min(anchor - chunk.startLine, all.length - 1) : 0;
  let from = Math.max(0, Math.min(at - Math.floor(lines / 4), all.length - lines));
  let to = Math.min(all.length, from + lines);
  while (from < to && all[from]!.trim() === '') from++;
  while (to > from && all[to - 1]!.trim() === '') to--;
  if (from >= to) return undefined;
  return { startLine: chunk.startLine + from, endLine: chunk.startLine + to - 1, text: all.slice(from, to).join('\n') };
}

const piece = (node: GraphNode, part: { startLine: number; endLine: number; text: string }, excerpt: boolean): ChatEvidence => ({
  path: node.path,
  startLine: part.startLine,
  endLine: part.endLine,
  score: roundScore(node.score, 3),
  role: node.role,
  ...(excerpt ? { excerpt: true } : {}),
  why: node.why,
  text: part.text,
});

/**
 * Pack a round's evidence: bodies of the best nodes (at most `bodies`, while they fit
 * `body_share` of the budget; a body that does not fit is passed over for the next), then excerpts
 * of every other node and candidate, best first, while the whole fits the budget. The pieces come
 * out in the order of the nodes, then the candidates.
 */
export function packEvidence(kb: KnowledgeBase, input: PackInput): PackedEvidence {
  const { nodes, bodies, budgetTokens } = input;
  const { lines, body_share: bodyShare } = input.excerpts;
  const seen = new Set(nodes.map((n) => n.fileId));
  const candidates = input.candidates.filter((c) => !seen.has(c.fileId) && seen.add(c.fileId));
  const bodiesOnly = (): PackedEvidence => {
    const evidence = fetchNodeTexts(kb, nodes, bodies);
    const sent = new Set(evidence.map((e) => e.path));
    return { evidence, left: nodes.filter((n) => !sent.has(n.path)), packed: false };
  };
  if (lines === 0) return bodiesOnly();
  const excerpts = new Map<GraphNode, ChatEvidence>();
  for (const node of [...nodes, ...candidates]) {
    const part = excerptOf(kb, node, lines);
    if (part) excerpts.set(node, piece(node, part, true));
  }
  const nodeExcerpts = nodes.reduce((n, node) => n + (excerpts.has(node) ? evidenceCost(excerpts.get(node)!) : 0), 0);
  if (nodeExcerpts > budgetTokens) return bodiesOnly();
  const chosen = new Map<GraphNode, ChatEvidence>();
  let tokens = 0;
  let taken = 0;
  for (const node of nodes) {
    if (taken >= bodies) break;
    const part = bodyOf(kb, node);
    if (!part) continue;
    taken++;
    const body = piece(node, part, false);
    if (tokens + evidenceCost(body) > budgetTokens * bodyShare) continue;
    tokens += evidenceCost(body);
    chosen.set(node, body);
  }
  for (const node of [...nodes, ...candidates]) {
    const excerpt = excerpts.get(node);
    if (chosen.has(node) || !excerpt || tokens + evidenceCost(excerpt) > budgetTokens) continue;
    tokens += evidenceCost(excerpt);
    chosen.set(node, excerpt);
  }
  const all = [...nodes, ...candidates];
  return { evidence: all.filter((n) => chosen.has(n)).map((n) => chosen.get(n)!), left: all.filter((n) => !chosen.has(n)), packed: true };
}
