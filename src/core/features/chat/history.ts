import type { ChatMessage, ChatTraceHistory } from '../../../shared/contract/chat';
import type { TurnCalls } from './calls';
import { estimateTokens } from '../../../shared/tokens';
import type { ConversationStore, HistorySummary } from './store';

/*
 * The conversation history of a turn's prompts within `max_history_tokens` (docs/design.md,
 * Conversation history). It fits: the raw turns. It does not: a query-aware summary of the
 * older turns (and of the previous summary) replaces them, is persisted as the conversation's
 * pointer, and later turns send that summary plus only the raw messages after it — re-summarizing
 * again when those outgrow the budget. The whole log is never summarized twice.
 */

/** The summarizer's instructions. */
export const HISTORY_SUMMARY_SYSTEM = [
  'You condense a conversation about a code repository so that the next question can be answered.',
  'Keep what matters for the new question: file paths, symbol names, identifiers, decisions and open points, written exactly.',
  'Write plain sentences, no preamble.',
].join('\n');

/** The raw messages kept after a new summary take at most this share of the budget. */
const RAW_SHARE_AFTER_SUMMARY = 0.5;

/** What goes into the prompts, and its part of the trace. */
export interface HistoryForPrompt {
  /** The `## Conversation so far` block, or '' when there is no history. */
  text: string;
  trace: ChatTraceHistory;
}

function line(m: ChatMessage): string {
  return `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content}`;
}

/** The history block: the summary first (when there is one), then the raw messages. */
export function formatHistory(summary: string | undefined, messages: readonly ChatMessage[]): string {
  if (!summary && messages.length === 0) return '';
  const parts = ['## Conversation so far'];
  if (summary) parts.push(`Summary of the earlier conversation: ${summary}`);
  parts.push(...messages.map(line));
  return parts.join('\n');
}

/** Options of {@link historyForPrompt}. */
export interface HistoryOptions {
  store: ConversationStore;
  conversationId: string;
  /** Messages before this id are history (the current question's id). */
  beforeId: number;
  /** The question the summary is conditioned on (in the model's language). */
  question: string;
  budgetTokens: number;
  calls: TurnCalls;
  signal?: AbortSignal;
}

/** The history for this turn's prompts, summarizing (and persisting the summary) when it is over budget. */
export async function historyForPrompt(options: HistoryOptions): Promise<HistoryForPrompt> {
  const { store, conversationId, budgetTokens } = options;
  const all = store.messages(conversationId).filter((m) => m.id < options.beforeId && (m.role === 'user' || m.status === 'done'));
  const pointer = store.latestSummary(conversationId);
  const newer = all.filter((m) => m.id > (pointer?.throughMessageId ?? 0));
  const notes: string[] = [];
  const current = formatHistory(pointer?.summary, newer);
  const result = (text: string, messages: number, summary?: ChatTraceHistory['summary']): HistoryForPrompt => ({
    text,
    trace: { messages, tokens: estimateTokens(text), budgetTokens, notes, ...(summary ? { summary } : {}) },
  });
  if (estimateTokens(current) <= budgetTokens) {
    return result(current, newer.length, pointer ? { text: pointer.summary, throughMessageId: pointer.throughMessageId, created: false } : undefined);
  }
  // Keep the newest messages raw while they fit a share of the budget; summarize the rest with the old summary.
  const keep: ChatMessage[] = [];
  let kept = 0;
  for (const m of [...newer].reverse()) {
    const cost = estimateTokens(line(m)) + 1;
    if (kept + cost > budgetTokens * RAW_SHARE_AFTER_SUMMARY) break;
    keep.unshift(m);
    kept += cost;
  }
  const folded = newer.slice(0, newer.length - keep.length);
  if (folded.length === 0) {
    // Only the summary itself is over budget: it is cut, since the newest turn must stay.
    notes.push('The stored summary alone was over the history budget and was cut.');
    return result(fit(formatHistory(pointer?.summary, keep), budgetTokens), keep.length);
  }
  let written: HistorySummary;
  try {
    written = await summarize(options, pointer, folded, budgetTokens - kept);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    notes.push(`The history summary failed (${error instanceof Error ? error.message : String(error)}); only the newest messages were sent.`);
    return result(formatHistory(undefined, keep), keep.length);
  }
  const text = fit(formatHistory(written.summary, keep), budgetTokens);
  return result(text, keep.length, { text: written.summary, throughMessageId: written.throughMessageId, created: true });
}

async function summarize(options: HistoryOptions, pointer: HistorySummary | undefined, folded: readonly ChatMessage[], roomTokens: number): Promise<HistorySummary> {
  const words = Math.max(30, Math.floor(roomTokens * 0.6));
  const prompt = [
    `New question: ${options.question}`,
    '',
    ...(pointer ? ['Summary so far:', pointer.summary, ''] : []),
    'Conversation to fold in:',
    ...folded.map(line),
    '',
    `Summarize the conversation for answering the new question, in at most ${words} words.`,
  ].join('\n');
  const summary = await options.calls.text('history-summary', prompt, { stage: 'summarize', system: HISTORY_SUMMARY_SYSTEM, signal: options.signal });
  if (summary === '') throw new Error('the summarizer replied with nothing');
  const callId = options.calls.calls.at(-1)?.callId;
  return options.store.appendSummary({
    conversationId: options.conversationId,
    summary: fit(summary, Math.max(20, roomTokens)),
    throughMessageId: folded.at(-1)!.id,
    question: options.question,
    ...(callId !== undefined ? { modelCallId: callId } : {}),
  });
}

/** The text cut to about `tokens` tokens. */
function fit(text: string, tokens: number): string {
  const chars = tokens * 4;
  return text.length <= chars ? text : `${text.slice(0, Math.max(0, chars - 1))}…`;
}
