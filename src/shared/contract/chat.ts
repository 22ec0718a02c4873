import { z } from 'zod';
import { CHAT_MODES } from '../vocabulary';
import { event, request } from './define';
import type { RunStarted, Sequenced } from './runInfo';
import { oneOf } from './inputs';
import type { Reason } from './reasons';
import { pipelineNameSchema, type RepoInfo } from './repos';

/** A retrieval mode of the router's protocol (docs/design.md, The chat router). */
export type RouteMode = 'SEMANTIC' | 'SEMANTIC_RERANK' | 'BM25' | 'HYBRID' | 'DIRECT';

/** What a question asks for, by pattern; sets retrieval depth and graph expansion. */
export type ChatIntent = 'SUMMARY' | 'SEARCH' | 'FLOW' | 'DATA_LIFECYCLE' | 'MIGRATION' | 'EXPLAIN' | 'IMPACT';

/** The retrieval mode a person picks: `auto` asks the routing model. */
export type ChatMode = (typeof CHAT_MODES)[number];

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
  /** A few lines around the line that matters instead of the body (a file past the bodies the budget holds). */
  excerpt?: boolean;
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
  searchMode: 'keyword' | 'semantic' | 'hybrid' | 'semantic_rerank' | 'none';
  /** Lines for people: a vector mode ran as keyword, the budget cut evidence, … */
  notes: string[];
  /** Graph expansion: seeds walked, neighbours added, depth and decay used. */
  expansion: { seeds: number; added: number; depth: number; decay: number };
  /** Estimated tokens of the evidence sent, and the budget. */
  evidenceTokens: number;
  budgetTokens: number;
  /** The pipeline the turn ran (its name, the names it extends, its warnings, and refused pipelines of the repository). */
  pipeline?: { name: string; lineage: string[]; warnings: string[]; problems: string[] };
  /** The steps the turn went through, in order, with the outcome of each. */
  steps?: ChatTraceStep[];
  /** The question's language and whether it was translated (in, and the answer back). */
  language?: ChatTraceLanguage;
  /** The conversation history sent: raw turns, or a rolling summary plus the turns after it. */
  history?: ChatTraceHistory;
  /** Each retrieval round: the first, then one per follow-up request of the answer model. */
  rounds?: ChatTraceRound[];
  /** Every model call of the turn, in order; `callId` opens it in the Logs page. */
  calls?: ChatTraceCall[];
  /** Summaries of the repository's summary tree sent ahead of the evidence (similarity to the question ≥ the pipeline's minimum). */
  summaries?: Array<{ level: number; files: string[]; score: number; text: string }>;
  /** The follow-up loop: requests made, the cap, and whether the cap ended the turn. */
  loops?: { used: number; max: number; requests: string[]; exhausted: boolean };
}

/**
 * How a round's fused pool was re-ranked: by the model assigned to `rerank` (`model`), else by
 * embedding similarity to the query (`embedding`, when the index has vectors), else left in the
 * fused order (`fused`); `reason` says why the model's order was not used.
 */
export interface ChatTraceRerank {
  method: 'model' | 'embedding' | 'fused';
  /** batch: one call ranks every candidate; per_item: one relevance call per candidate. */
  style: 'batch' | 'per_item';
  pool: number;
  reason?: string;
}

/** One step of a chat pipeline as the turn ran it. */
export interface ChatTraceStep {
  id: string;
  action: string;
  outcome: string;
  /** Wall time of the step in milliseconds. */
  ms?: number;
}

/** How the question's language was found and handled. */
export interface ChatTraceLanguage {
  /** ISO 639-1 code (`en`, `pl`, …); null when detection was not sure. */
  language: string | null;
  /** `detected` offline from the text, or `chosen` by the person. */
  source: 'detected' | 'chosen';
  /** Detection confidence 0..1 (1 for a chosen language). */
  confidence: number;
  /** Whether the question was translated in and the answer back. */
  translated: boolean;
  /** The question as retrieval and the answer model saw it. */
  question: string;
}

/** The history part of a turn's prompt. */
export interface ChatTraceHistory {
  /** Raw messages sent (after the summary, when there is one). */
  messages: number;
  tokens: number;
  budgetTokens: number;
  /** The rolling summary sent in front of the raw messages; `created` when this turn wrote it. */
  summary?: { text: string; throughMessageId: number; created: boolean };
  notes: string[];
}

/** One retrieval round of a turn. */
export interface ChatTraceRound {
  round: number;
  /** The answer model's request that started this round (absent for the first). */
  request?: string;
  mode: RouteMode;
  searchMode: 'keyword' | 'semantic' | 'hybrid' | 'semantic_rerank' | 'none';
  /** Fusion of keyword and vector scores, for hybrid rounds. */
  fusion?: 'rrf' | 'dist';
  /** Queries searched (the route's, then any expanded phrasings). */
  queries: string[];
  /** Search hits with their scores, best first: the graph seeds (`expansion.seeds`), then hits sent as excerpts at most. */
  hits: Array<{ path: string; score: number }>;
  /** Graph expansion: neighbours added per edge kind, depth, decay, node cap and the edges allowed. */
  expansion: { seeds: number; added: number; depth: number; decay: number; maxNodes: number; edges: string[]; byEdge: Record<string, number> };
  /** Re-ranking of the fused pool (when the pipeline turns it on): which method ran, over how many candidates, and why a fallback ran. */
  rerank?: ChatTraceRerank;
  /** Pieces fetched by identity: bodies, and excerpts when the pipeline packs them. */
  fetched: number;
  /** Of the pieces fetched, how many are excerpts (files past the bodies the budget holds). */
  excerpts?: number;
  evidenceTokens: number;
  budgetTokens: number;
  /** `summarized`: a query-aware call condensed the evidence; `trimmed`: the worst bodies were left out. */
  budget: 'fits' | 'summarized' | 'trimmed';
  /** The condensed evidence sent instead of the bodies (budget `summarized`). */
  summary?: string;
  notes: string[];
}

/** One model call made by a turn. */
export interface ChatTraceCall {
  purpose: 'routing' | 'translate-in' | 'history-summary' | 'query-expansion' | 'evidence-summary' | 'answer' | 'translate-out' | 'rerank';
  stage: string;
  /** The row of the call in the repository's model-call log (model_calls.id), when it was logged. */
  callId?: number;
  model?: string;
  system?: string;
  prompt: string;
  reply?: string;
  promptTokens?: number;
  completionTokens?: number;
  latencyMs?: number;
  error?: string;
  /** The retrieval round it belongs to (0 = before or in the first). */
  round: number;
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
  /** The pipeline its latest answer ran: the conversation keeps it (chat/ask without `pipeline` goes on with it). */
  pipeline?: string;
  /** The language its latest question was said to be in (absent: detected). */
  language?: string;
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
  'chat/ask': request<RunStarted<'chat'> & { conversationId: string }>()(
    'Ask a question about a repository: starts a `chat` run that emits chat/sources, chat/token… and chat/done',
    () => z.object({
      repoId: z.string().min(1),
      question: z.string().trim().min(1, { error: 'question must not be empty' }).max(8000, { error: 'question must be at most 8000 characters' }),
      conversationId: conversationId.optional(),
      /** `keyword` as in search; `bm25`, its old name here, is still accepted (for one release). */
      mode: oneOf('a chat mode', CHAT_MODES, ['bm25']).default('auto'),
      /** `auto` (default) detects the question's language offline; an ISO 639-1 code says it. */
      language: z.string().regex(/^(auto|[a-z]{2,3})$/, { error: 'language must be auto or an ISO 639-1 code such as en or pl' }).optional(),
      /**
       * The question's language as the caller already detected it with the same offline detector
       * (src/shared/language.ts; the CLI runs it before the engine loads, the normal tables on another thread), used
       * instead of detecting again; absent: the engine detects. Not used when `language` names one.
       */
      detected: z
        .object({
          language: z.string().regex(/^[a-z]{2,3}$/, { error: 'detected.language must be an ISO 639-1 code such as en or pl' }).nullable(),
          confidence: z.number().min(0).max(1),
        })
        .strict()
        .optional(),
      /** A pipeline by name; absent: the conversation's, else the repository's default (chat/setDefaultPipeline), else `default`. */
      pipeline: pipelineNameSchema.optional(),
    }),
    { repoId: 'repo-1', question: 'Where is the config loaded?' },
  ),
  'chat/history': request<{ conversations: ConversationSummary[]; messages: ChatMessage[] }>()(
    "A repository's conversations (newest first) and the messages of one of them when named",
    () => z.object({ repoId: z.string().min(1), conversationId: conversationId.optional() }),
    { repoId: 'repo-1' },
  ),
  'chat/rename': request<ConversationSummary>()(
    'Give a conversation a title (instead of its first question); NOT_FOUND for a conversation the repository does not have',
    () => z.object({
      repoId: z.string().min(1),
      conversationId,
      title: z.string().trim().min(1, { error: 'title must not be empty' }).max(200, { error: 'title must be at most 200 characters' }),
    }),
    { repoId: 'repo-1', conversationId: 'c-1', title: 'Config loading' },
  ),
  'chat/delete': request<{ deleted: number }>()(
    'Delete a conversation: its messages and title (the model calls stay in the log); `deleted` is the number of messages removed',
    () => z.object({ repoId: z.string().min(1), conversationId }),
    { repoId: 'repo-1', conversationId: 'c-1' },
  ),
  'chat/export': request<ConversationExport>()(
    'A conversation as markdown: each question, its answer, sources and flagged citations',
    () => z.object({ repoId: z.string().min(1), conversationId }),
    { repoId: 'repo-1', conversationId: 'c-1' },
  ),
  'chat/pipelines': request<ChatPipelines>()(
    "The chat pipelines a repository can use (built-in and its .cleanroom/pipelines/*.yaml), the refused ones with the reason, and the repository's default",
    () => z.object({ repoId: z.string().min(1) }),
    { repoId: 'repo-1' },
  ),
  'chat/setDefaultPipeline': request<ChatPipelines & { repo: RepoInfo }>()(
    "Make a pipeline the repository's default for new conversations (kept in the registry; null: back to the built-in `default`); VALIDATION for a pipeline the repository cannot use, with the reason",
    () => z.object({ repoId: z.string().min(1), pipeline: pipelineNameSchema.nullable() }).strict(),
    { repoId: 'repo-1', pipeline: null },
  ),
} as const;

/** What chat/pipelines answers. */
export interface ChatPipelines {
  pipelines: ChatPipelineInfo[];
  /** Refused pipelines: `file:line: pipeline "name": reason`. */
  problems: string[];
  /** The same refusals, in parts (`name` when the file got as far as naming its pipeline), in the order of `problems`. */
  refused: ChatPipelineProblem[];
  /** The pipeline a new conversation uses: the repository's chosen default when usable, else `default`. */
  defaultPipeline: string;
  /** The repository's chosen default when it can no longer be used (refused or gone), and why; `defaultPipeline` is then `default`. */
  chosenDefault?: { name: string; problem: string };
}

/** A pipeline file refused on load: where (repository-relative file, 1-based line) and why. */
export interface ChatPipelineProblem {
  name?: string;
  file: string;
  line?: number;
  message: string;
}

/** A usable chat pipeline as chat/pipelines lists it. */
export interface ChatPipelineInfo {
  name: string;
  file: string;
  /** Names from the root parent to this one. */
  lineage: string[];
  entryStepId: string;
  steps: number;
  warnings: string[];
  /** Its merged settings (YAML spelling). */
  settings: Record<string, unknown>;
}

/** Events of a chat run, in this order per turn: sources, tokens, done. */
export const chatEvents = {
  'chat/sources': event<{ runId: string; repoId: string; conversationId: string; sources: ChatSource[]; trace: ChatTrace; round?: number } & Sequenced>()(
    'The evidence of a turn, before the answer; sent again (round 1, 2, …) when a follow-up request of the answer model retrieved more',
  ),
  'chat/token': event<{ runId: string; conversationId: string; text: string } & Sequenced>()('A piece of the answer as the model streams it (thinking removed)'),
  'chat/done': event<{ runId: string; repoId: string; conversationId: string; message: ChatMessage } & Sequenced>()('The stored answer with its citations (also after a failure or Stop)'),
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
    parts.push(citationRef(match));
    at = index + match[0].length;
  }
  if (at < answer.length) parts.push(answer.slice(at));
  return parts;
}

const CITATION_HERE = new RegExp(CITATION.source, 'y');

/** The citation `text` starts with, if it starts with one; reads no further than that citation could reach (a tokenizer calls it at every `[`). */
export function citationAt(text: string): CitationRef | undefined {
  CITATION_HERE.lastIndex = 0;
  const match = CITATION_HERE.exec(text);
  return match ? citationRef(match) : undefined;
}

function citationRef(match: RegExpExecArray | RegExpMatchArray): CitationRef {
  const a = Number(match[2]);
  const b = match[3] !== undefined ? Number(match[3]) : a;
  return { text: match[0], path: (match[1] as string).replace(/^\.\//, ''), startLine: Math.max(1, Math.min(a, b)), endLine: Math.max(1, a, b) };
}
