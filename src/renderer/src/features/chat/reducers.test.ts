import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../../shared/contract/chat';
import { finishTurn, pendingTurn, turnsFromMessages, updateLast } from './reducers';

const answer: ChatMessage = { id: 2, conversationId: 'c-1', role: 'assistant', content: 'In [a.py:1-2]', createdAt: 't', runId: 'r1', status: 'done', sources: [{ path: 'a.py', startLine: 1, endLine: 9, score: 1, role: 'seed', why: [] }], citations: [] };

describe('chat reducers', () => {
  it('turns stored messages into turns: a question with its answer, a question left without one', () => {
    const turns = turnsFromMessages([{ id: 1, conversationId: 'c-1', role: 'user', content: 'Where?', createdAt: 't' }, answer, { id: 3, conversationId: 'c-1', role: 'user', content: 'And?', createdAt: 't' }]);
    expect(turns.map((t) => [t.question, t.answer, t.status])).toEqual([
      ['Where?', 'In [a.py:1-2]', 'done'],
      ['And?', '', 'failed'],
    ]);
    expect(turns[0]!.sources).toHaveLength(1);
  });
  it('updates only the last turn, and finishing keeps the streamed sources when the message has none', () => {
    const turns = updateLast([pendingTurn('a'), pendingTurn('b')], (t) => ({ ...t, answer: 'x' }));
    expect(turns.map((t) => t.answer)).toEqual(['', 'x']);
    const streamed = { ...pendingTurn('b'), sources: answer.sources!, status: 'streaming' as const };
    expect(finishTurn(streamed, { ...answer, sources: undefined, status: 'cancelled', content: 'In' })).toMatchObject({ status: 'cancelled', answer: 'In', sources: answer.sources });
  });
});
