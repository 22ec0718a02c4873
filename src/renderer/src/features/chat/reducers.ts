import type { ChatCitation, ChatMessage, ChatSource, ChatTrace } from '../../../../shared/contract/chat';

/** One question and its answer as the page shows it. */
export interface Turn {
  question: string;
  runId: string | null;
  sources: ChatSource[] | null;
  trace: ChatTrace | null;
  answer: string;
  citations: ChatCitation[] | null;
  status: 'retrieving' | 'streaming' | 'done' | 'failed' | 'cancelled';
  error: string | null;
}

/** A new turn waiting for its sources. */
export function pendingTurn(question: string): Turn {
  return { question, runId: null, sources: null, trace: null, answer: '', citations: null, status: 'retrieving', error: null };
}

/** Turns from stored messages (a user message, then its answer when there is one). */
export function turnsFromMessages(messages: readonly ChatMessage[]): Turn[] {
  const turns: Turn[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      turns.push({ ...pendingTurn(m.content), runId: m.runId ?? null, status: 'failed', error: 'No answer was stored.' });
      continue;
    }
    const last = turns.at(-1);
    if (!last) continue;
    Object.assign(last, { sources: m.sources ?? [], trace: m.trace ?? null, answer: m.content, citations: m.citations ?? [], status: m.status ?? 'done', error: m.error ?? null });
  }
  return turns;
}

/** Apply an event to the last turn (the page runs one turn at a time per conversation). */
export function updateLast(turns: readonly Turn[], update: (turn: Turn) => Turn): Turn[] {
  if (turns.length === 0) return [...turns];
  return [...turns.slice(0, -1), update(turns.at(-1) as Turn)];
}

/** The last turn once its answer is stored. */
export function finishTurn(turn: Turn, message: ChatMessage): Turn {
  // The stored trace is the whole turn's (the one sent with the sources stops before the answer call).
  return { ...turn, runId: message.runId ?? turn.runId, answer: message.content, citations: message.citations ?? [], sources: message.sources ?? turn.sources, trace: message.trace ?? turn.trace, status: message.status ?? 'done', error: message.error ?? null };
}

/** Whether a turn is still being answered. */
export function isInFlight(turn: Turn | undefined): boolean {
  return turn?.status === 'retrieving' || turn?.status === 'streaming';
}

/**
 * Turns of conversations not shown whose answer is still streaming, by conversation: the events
 * keep updating them, so going back shows the answer as far as it got (the store has only the
 * question until the answer is done).
 */
export type BackgroundTurns = Record<string, Turn>;

/**
 * Keep the shown conversation's last turn when it is in flight and the page leaves it. A new
 * conversation (no id yet: its first question is on its way) is kept when chat/ask answers.
 */
export function leaveConversation(background: BackgroundTurns, conversationId: string | null, turns: readonly Turn[]): BackgroundTurns {
  const last = turns.at(-1);
  return conversationId !== null && isInFlight(last) ? { ...background, [conversationId]: last as Turn } : background;
}

/** Apply an event to a background turn (nothing when the conversation has none). */
export function updateBackground(background: BackgroundTurns, conversationId: string, update: (turn: Turn) => Turn): BackgroundTurns {
  const turn = background[conversationId];
  return turn ? { ...background, [conversationId]: update(turn) } : background;
}

/**
 * The turns of a conversation opened again: the stored ones, the last replaced by its background
 * turn when that is the same question still being answered. Returns the background without it.
 */
export function reopenConversation(background: BackgroundTurns, conversationId: string, stored: Turn[]): { turns: Turn[]; background: BackgroundTurns } {
  const live = background[conversationId];
  if (!live) return { turns: stored, background };
  const { [conversationId]: _live, ...rest } = background;
  // Finished meanwhile: the stored answer is the whole one.
  if (!isInFlight(live)) return { turns: stored, background: rest };
  const last = stored.at(-1);
  const isSameQuestion = last !== undefined && last.question === live.question && last.answer === '';
  return { turns: isSameQuestion ? [...stored.slice(0, -1), live] : [...stored, live], background: rest };
}
