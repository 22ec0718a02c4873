import { z } from 'zod';
import { event, request } from './define';
import type { Reason } from './reasons';

/** A retrieval mode of the router's protocol (seeds: rag-for-code-pipeline §3.1). */
export type RouteMode = 'SEMANTIC' | 'SEMANTIC_RERANK' | 'BM25' | 'HYBRID' | 'DIRECT';

/** What a question asks for, by pattern; sets retrieval depth and graph expansion. */
export type ChatIntent = 'SUMMARY' | 'SEARCH' | 'FLOW' | 'DATA_LIFECYCLE' | 'MIGRATION' | 'EXPLAIN' | 'IMPACT';

/** The retrieval mode a person picks: `auto` asks the routing model. */
export type ChatMode = 'auto' | 'bm25' | 'semantic' | 'hybrid';

/** How a turn's retrieval was chosen. */
export interface ChatRoute {
  mode: RouteMode;
  /** The query retrieval runs (the router's rewrite, else the question). */
  query: string;
  /** `model`: a valid router reply; `fallback`: the reply broke the protocol (see `reason`); `chosen`: the person's mode. */
  source: 'model' | 'fallback' | 'chosen';
  /** Why the route fell back. */
  reason?: string;
  /** The router's reply as it came. */
  raw?: string;
  /** Whether the reply had a thinking block (removed before reading). */
  thinking: boolean;
}

/** One piece of evidence sent to the answer model, shown to the person before the answer. */
export interface ChatSource {
  path: string;
  /** Lines of the body sent (1-based, inclusive). */
  startLine: number;
  endLine: number;
  /** Retrieval score (seeds: search score; neighbours: parent × decay). */
  score: number;
  /** `seed`: a search hit; `neighbour`: reached by graph expansion. */
  role: 'seed' | 'neighbour';
  why: Reason[];
}

/** A `[path:start-end]` citation in an answer, checked against the sources and the index. */
export interface ChatCitation {
  /** The citation as written. */
  text: string;
  path: string;
  startLine: number;
  endLine: number;
  /**
   * `source`: the lines are in a source of this turn; `indexed`: the file and lines exist in the
   * index but were not among the sources; `unverified`: no such file, or lines past its end.
   */
  status: 'source' | 'indexed' | 'unverified';
  why: Reason[];
}

/** What one turn's retrieval did (the start of "how this answer was made"). */
export interface ChatTrace {
  route: ChatRoute;
  intent: ChatIntent;
  /** The search mode that actually ran (`none` for DIRECT). */
  searchMode: 'keyword' | 'semantic' | 'hybrid' | 'none';
  /** Lines for people: a vector mode ran as keyword, the budget cut evidence, … */
  notes: string[];
  /** Graph expansion: seeds walked, neighbours added, depth and decay used. */
  expansion: { seeds: number; added: number; depth: number; decay: number };
  /** Estimated tokens of the evidence sent, and the budget. */
  evidenceTokens: number;
  budgetTokens: number;
}

/** One stored message of a conversation. */
export interface ChatMessage {
  id: number;
  conversationId: string;
  role: 'user' | 'assistant';
  /** The text (an assistant's without thinking blocks). */
  content: string;
  createdAt: string;
  runId?: string;
  sources?: ChatSource[];
  citations?: ChatCitation[];
  trace?: ChatTrace;
  /** An answer that did not finish: `failed` or `cancelled`, with the error. */
  status?: 'done' | 'failed' | 'cancelled';
  error?: string;
}

/** A conversation as a list shows it. */
export interface ConversationSummary {
  conversationId: string;
  /** The first question. */
  title: string;
  messages: number;
  updatedAt: string;
}

/** A conversation exported as markdown (`chat/export`, `cra chat --export`). */
export interface ConversationExport {
  conversationId: string;
  title: string;
  /** A file name for saving it: the title as a slug, `.md`. */
  fileName: string;
  markdown: string;
}

const conversationId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'conversationId must be 1–64 letters, digits, - or _' });

/** Requests of the chat domain. */
export const chatRequests = {
  'chat/ask': request<{ runId: string; conversationId: string }>()(
    'Ask a question about a repository: starts a `chat` run that emits chat/sources, chat/token… and chat/done',
    z.object({
      repoId: z.string().min(1),
      question: z.string().trim().min(1, { error: 'question must not be empty' }).max(8000, { error: 'question must be at most 8000 characters' }),
      conversationId: conversationId.optional(),
      mode: z.enum(['auto', 'bm25', 'semantic', 'hybrid']).default('auto'),
    }),
    { repoId: 'repo-1', question: 'Where is the config loaded?' },
  ),
  'chat/history': request<{ conversations: ConversationSummary[]; messages: ChatMessage[] }>()(
    "A repository's conversations (newest first) and the messages of one of them when named",
    z.object({ repoId: z.string().min(1), conversationId: conversationId.optional() }),
    { repoId: 'repo-1' },
  ),
  'chat/rename': request<ConversationSummary>()(
    'Give a conversation a title (instead of its first question); NOT_FOUND for a conversation the repository does not have',
    z.object({
      repoId: z.string().min(1),
      conversationId,
      title: z.string().trim().min(1, { error: 'title must not be empty' }).max(200, { error: 'title must be at most 200 characters' }),
    }),
    { repoId: 'repo-1', conversationId: 'c-1', title: 'Config loading' },
  ),
  'chat/delete': request<{ deleted: number }>()(
    'Delete a conversation: its messages and title (the model calls stay in the log); `deleted` is the number of messages removed',
    z.object({ repoId: z.string().min(1), conversationId }),
    { repoId: 'repo-1', conversationId: 'c-1' },
  ),
  'chat/export': request<ConversationExport>()(
    'A conversation as markdown: each question, its answer, sources and flagged citations',
    z.object({ repoId: z.string().min(1), conversationId }),
    { repoId: 'repo-1', conversationId: 'c-1' },
  ),
} as const;

/** Events of a chat run, in this order per turn: sources, tokens, done. */
export const chatEvents = {
  'chat/sources': event<{ runId: string; repoId: string; conversationId: string; sources: ChatSource[]; trace: ChatTrace }>()('The evidence of a turn, before the answer'),
  'chat/token': event<{ runId: string; conversationId: string; text: string }>()('A piece of the answer as the model streams it (thinking removed)'),
  'chat/done': event<{ runId: string; repoId: string; conversationId: string; message: ChatMessage }>()('The stored answer with its citations (also after a failure or Stop)'),
} as const;

/** `[path:12]` or `[path:12-30]` (an en dash too); a path has no spaces, brackets or colons. */
const CITATION = /\[([^\s[\]:]+):(\d+)(?:\s*[-–]\s*(\d+))?\]/g;

/** A citation as written in an answer, before it is checked. */
export interface CitationRef {
  text: string;
  path: string;
  startLine: number;
  endLine: number;
}

/**
 * An answer cut into plain text and `[path:start-end]` citations, in order; the engine checks them
 * (`ChatCitation`) and the app links them, both with this one reading.
 */
export function citationParts(answer: string): Array<string | CitationRef> {
  const parts: Array<string | CitationRef> = [];
  let at = 0;
  for (const match of answer.matchAll(CITATION)) {
    const index = match.index ?? 0;
    if (index > at) parts.push(answer.slice(at, index));
    const a = Number(match[2]);
    const b = match[3] !== undefined ? Number(match[3]) : a;
    parts.push({ text: match[0], path: (match[1] as string).replace(/^\.\//, ''), startLine: Math.max(1, Math.min(a, b)), endLine: Math.max(1, a, b) });
    at = index + match[0].length;
  }
  if (at < answer.length) parts.push(answer.slice(at));
  return parts;
}
