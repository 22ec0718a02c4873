import type { ChatIntent, ChatRoute, RouteMode } from '../../../shared/contract/chat';
import type { EdgeKind } from './pipeline';

/*
 * The chat router (docs/design.md, The chat router). A small model
 * answers with exactly one line and one prefix; anything else — extra text, several lines, an
 * unknown prefix, an empty reply, a failed call — falls back to keyword search with the question
 * itself, and the route says why. A thinking block (`<think>…</think>`, what qwen3 models emit) is
 * removed before the line is read: it is the model's scratch space, not part of the protocol.
 */

/** The prefixes of the protocol, in the form the model must write them. */
export const ROUTE_PREFIXES: Record<RouteMode, string> = {
  SEMANTIC: '[SEMANTIC:]',
  SEMANTIC_RERANK: '[SEMANTIC_RERANK:]',
  BM25: '[BM25:]',
  HYBRID: '[HYBRID:]',
  DIRECT: '[DIRECT:]',
};

/** The mode every fallback takes: keyword search works on every index, with or without vectors. */
export const FALLBACK_MODE: RouteMode = 'BM25';

/** The router's system prompt: the protocol, stated once. */
export const ROUTER_SYSTEM = [
  'You route questions about a code repository to a retrieval mode.',
  'Reply with exactly one line and nothing else, starting with exactly one of these prefixes:',
  '[SEMANTIC:] <a better query for meaning-based search>',
  '[SEMANTIC_RERANK:] <a better query, optionally with keyword hints>',
  '[BM25:] <keywords: identifiers, file names, error strings>',
  '[HYBRID:] <a query for keyword and meaning-based search together>',
  '[DIRECT:] <empty, or the question> when the answer needs no code from the repository',
].join('\n');

const THINK_BLOCK = /<think>[\s\S]*?<\/think>/gi;

/** The text without thinking blocks; an unclosed `<think>` hides everything after it. */
export function stripThinking(text: string): { text: string; thinking: boolean } {
  let thinking = false;
  let out = text.replace(THINK_BLOCK, () => {
    thinking = true;
    return '';
  });
  const open = out.search(/<think>/i);
  if (open >= 0) {
    thinking = true;
    out = out.slice(0, open);
  }
  return { text: out, thinking };
}

/** A route that falls back to keyword search with the question, saying why. */
function fallback(question: string, reason: string, raw: string | undefined, thinking: boolean): ChatRoute {
  return { mode: FALLBACK_MODE, query: question, source: 'fallback', reason, ...(raw !== undefined ? { raw } : {}), thinking };
}

/**
 * Read a router reply strictly. Accepted: after removing thinking blocks and surrounding blank
 * space, one line that starts with one known prefix. The query after the prefix is used; an empty
 * one (allowed for DIRECT) means the question itself.
 */
export function parseRoute(reply: string, question: string): ChatRoute {
  const { text, thinking } = stripThinking(reply);
  const body = text.trim();
  if (body === '') return fallback(question, thinking ? 'the reply had only a thinking block' : 'the reply was empty', reply, thinking);
  const lines = body.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length > 1) return fallback(question, `the reply had ${lines.length} lines, not one`, reply, thinking);
  const line = (lines[0] as string).trim();
  const match = /^\[([A-Za-z0-9_]+):\]\s*(.*)$/.exec(line);
  if (!match) {
    const prefixAt = line.search(/\[[A-Za-z0-9_]+:\]/);
    const reason = prefixAt > 0 ? 'the reply had text before its prefix' : 'the reply had no [MODE:] prefix';
    return fallback(question, reason, reply, thinking);
  }
  const mode = match[1] as string;
  if (!(mode in ROUTE_PREFIXES)) return fallback(question, `unknown prefix [${mode}:]`, reply, thinking);
  const rest = (match[2] as string).trim();
  if (/\[[A-Za-z0-9_]+:\]/.test(rest)) return fallback(question, 'the reply had more than one prefix', reply, thinking);
  return { mode: mode as RouteMode, query: rest === '' ? question : rest, source: 'model', raw: reply, thinking };
}

/** A route chosen by the person (the mode selector), no model call. */
export function chosenRoute(mode: 'keyword' | 'bm25' | 'semantic' | 'hybrid', question: string): ChatRoute {
  // `bm25` is the old name of `keyword` (search's name), accepted for one release.
  const byChoice: Record<typeof mode, RouteMode> = { keyword: 'BM25', bm25: 'BM25', semantic: 'SEMANTIC', hybrid: 'HYBRID' };
  return { mode: byChoice[mode], query: question, source: 'chosen', thinking: false };
}

/** How deep retrieval goes for an intent: seed files, graph depth, score decay per hop, node cap. */
export interface IntentPlan {
  intent: ChatIntent;
  /** Search hits taken as seeds of the graph walk. */
  seeds: number;
  depth: number;
  decay: number;
  maxNodes: number;
  /** Edge kinds this intent walks (absent: every kind the pipeline allows). */
  edges?: readonly EdgeKind[];
}

/** Per intent (docs/design.md, Graph expansion); SEARCH is the default. */
export const INTENT_PLANS: Record<ChatIntent, Omit<IntentPlan, 'intent'>> = {
  SEARCH: { seeds: 8, depth: 1, decay: 0.7, maxNodes: 12 },
  EXPLAIN: { seeds: 6, depth: 1, decay: 0.7, maxNodes: 10 },
  SUMMARY: { seeds: 12, depth: 1, decay: 0.7, maxNodes: 16 },
  FLOW: { seeds: 8, depth: 2, decay: 0.5, maxNodes: 20 },
  DATA_LIFECYCLE: { seeds: 8, depth: 2, decay: 0.6, maxNodes: 12 },
  MIGRATION: { seeds: 10, depth: 1, decay: 0.7, maxNodes: 14 },
  // Impact is a reverse walk: who calls, imports or changes with what the question names.
  IMPACT: { seeds: 6, depth: 3, decay: 0.4, maxNodes: 24, edges: ['called-by', 'imported-by', 'co-change'] },
};

/** Checked in this order: the first pattern that matches names the intent. */
const INTENT_PATTERNS: Array<[ChatIntent, RegExp]> = [
  ['SUMMARY', /\b(summari[sz]e|summary|overview|high[- ]level|architecture|what (is|does) (this|the) (repo|repository|project|codebase))\b/i],
  ['IMPACT', /\b(impact|blast radius|would break|what breaks|affected by|who (uses|calls|imports)|depends? on|if i (change|remove|rename))\b/i],
  ['MIGRATION', /\b(migrat\w*|upgrad\w*|deprecat\w*|port(ing)? (it |this )?to|convert\w* .* to)\b/i],
  ['DATA_LIFECYCLE', /\b(persist\w*|stored?|saved?|database|table|schema|entity|entities|written|serializ\w*|cache[sd]?)\b/i],
  ['FLOW', /\b(flow|call chain|sequence|step by step|end to end|how (does|do|is) .+ (work|processed|handled|happen|get)\w*)\b/i],
  ['EXPLAIN', /\b(explain|what (is|are|does)|why (does|is|do)|meaning of|purpose of)\b/i],
];

/** The intent of a question by pattern (no model call) and the retrieval depth that goes with it. */
export function detectIntent(question: string): IntentPlan {
  const intent = INTENT_PATTERNS.find(([, pattern]) => pattern.test(question))?.[0] ?? 'SEARCH';
  return { intent, ...INTENT_PLANS[intent] };
}

/** What routing needs from the model layer: one completion (the LlmClient's `complete`). */
export type RouterModel = (prompt: string, options: { system: string; stage: 'routing'; signal?: AbortSignal }) => Promise<{ text: string }>;

/** Ask the routing model for a route; a failed call falls back like a bad reply, with the error as reason. */
export async function routeQuestion(model: RouterModel, question: string, signal?: AbortSignal): Promise<ChatRoute> {
  let reply: string;
  try {
    reply = (await model(`Question: ${question}`, { system: ROUTER_SYSTEM, stage: 'routing', signal })).text;
  } catch (error) {
    if (signal?.aborted) throw error;
    return fallback(question, `the routing call failed: ${error instanceof Error ? error.message : String(error)}`, undefined, false);
  }
  return parseRoute(reply, question);
}
