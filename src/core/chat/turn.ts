import type { ChatMessage, ChatMode, ChatTrace } from '../../shared/contract/chat';
import type { EventBus } from '../runtime/events';
import type { KnowledgeBase } from '../kb/knowledgeBase';
import type { CompletionStream } from '../llm/client';
import type { CallOptions, Completion } from '../llm/types';
import type { Embedder } from '../search/embedder';
import { parseCitations, ThinkingFilter } from './citations';
import { DEFAULT_EVIDENCE_TOKENS, retrieveForChat, type ChatEvidence } from './retrieve';
import { chosenRoute, detectIntent, routeQuestion } from './router';
import type { ConversationStore } from './store';

/** The answer model's instructions: evidence only, cite lines, say what is missing. */
export const ANSWER_SYSTEM = [
  'You answer questions about a code repository using only the evidence given.',
  'Cite every claim about the code as [path:start-end] with the path and lines of the evidence, for example [src/app.py:12-30].',
  'If the evidence does not answer the question, say what is missing instead of guessing.',
].join('\n');

/** Earlier turns sent with a question (raw; a rolling summary is not built yet). */
export const HISTORY_MESSAGES = 6;

/** What a turn needs: the model calls it makes, the index, the store and the event bus. */
export interface TurnDeps {
  kb: KnowledgeBase;
  store: ConversationStore;
  events: EventBus;
  embedder: Embedder;
  complete(prompt: string, options: CallOptions): Promise<Completion>;
  stream(prompt: string, options: CallOptions): CompletionStream;
}

/** One question of a conversation. */
export interface TurnInput {
  runId: string;
  repoId: string;
  conversationId: string;
  question: string;
  mode: ChatMode;
  signal: AbortSignal;
  budgetTokens?: number;
}

/** The prompt of the answer call: earlier turns, the evidence with its lines, the question. */
export function answerPrompt(question: string, evidence: readonly ChatEvidence[], history: readonly ChatMessage[]): string {
  const parts: string[] = [];
  if (history.length > 0) parts.push('## Conversation so far', ...history.map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content}`), '');
  parts.push('## Evidence');
  if (evidence.length === 0) parts.push('(none: no file of the repository matched)');
  for (const e of evidence) parts.push(`[Source: ${e.path}:${e.startLine}-${e.endLine}]`, '```', e.text, '```');
  parts.push('', '## Question', question);
  return parts.join('\n');
}

/** Drops a leading `[Answer:]` marker (the answer protocol's prefix) from a stream of shown text. */
class AnswerPrefixFilter {
  private head = '';
  private decided = false;

  push(text: string): string {
    if (this.decided) return text;
    this.head += text;
    const trimmed = this.head.trimStart();
    const marker = '[Answer:]';
    if (trimmed.length < marker.length && marker.startsWith(trimmed)) return '';
    this.decided = true;
    return trimmed.startsWith(marker) ? trimmed.slice(marker.length).trimStart() : this.head;
  }

  end(): string {
    return this.decided ? '' : this.head;
  }
}

/**
 * Run one chat turn: store the question, route, retrieve, emit `chat/sources`, stream the answer
 * (thinking removed) as `chat/token`, parse and check its citations, store the answer and emit
 * `chat/done`. A failed or stopped answer is stored and reported too (with what streamed so far),
 * then the error is rethrown so the run ends failed or cancelled.
 */
export async function runChatTurn(deps: TurnDeps, input: TurnInput): Promise<ChatMessage> {
  const { runId, repoId, conversationId, question, signal } = input;
  const history = deps.store.messages(conversationId).filter((m) => m.role === 'user' || m.status === 'done').slice(-HISTORY_MESSAGES);
  deps.store.append({ conversationId, role: 'user', content: question, runId });
  const plan = detectIntent(question);
  const route = input.mode === 'auto' ? await routeQuestion((p, o) => deps.complete(p, o), question, signal) : chosenRoute(input.mode, question);
  const retrieval = await retrieveForChat(deps.kb, route, plan, { embedder: deps.embedder, budgetTokens: input.budgetTokens ?? DEFAULT_EVIDENCE_TOKENS, signal });
  const trace: ChatTrace = { route, intent: plan.intent, ...retrieval.trace };
  const sources = retrieval.evidence.map(({ text: _text, ...source }) => source);
  deps.events.emit('chat/sources', { runId, repoId, conversationId, sources, trace });

  const thinking = new ThinkingFilter();
  const prefix = new AnswerPrefixFilter();
  let answer = '';
  const show = (text: string) => {
    if (!text) return;
    answer += text;
    deps.events.emit('chat/token', { runId, conversationId, text });
  };
  const finish = (status: 'done' | 'failed' | 'cancelled', error?: string): ChatMessage => {
    const content = answer.trim();
    const citations = parseCitations(content, sources, deps.kb);
    const message = deps.store.append({ conversationId, role: 'assistant', content, runId, sources, citations, trace, status, ...(error ? { error } : {}) });
    deps.events.emit('chat/done', { runId, repoId, conversationId, message });
    return message;
  };
  try {
    const stream = deps.stream(answerPrompt(question, retrieval.evidence, history), { stage: 'chat', system: ANSWER_SYSTEM, signal });
    for await (const delta of stream) show(prefix.push(thinking.push(delta)));
    show(prefix.push(thinking.end()));
    show(prefix.end());
  } catch (error) {
    finish(signal.aborted ? 'cancelled' : 'failed', error instanceof Error ? error.message : String(error));
    throw error;
  }
  return finish('done');
}
