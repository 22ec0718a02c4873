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
  return { ...turn, runId: message.runId ?? turn.runId, answer: message.content, citations: message.citations ?? [], sources: message.sources ?? turn.sources, status: message.status ?? 'done', error: message.error ?? null };
}

/** A conversation id made by the page for a new conversation (the engine keeps the one it is given). */
export function newConversationId(): string {
  return `c-${crypto.randomUUID()}`;
}
