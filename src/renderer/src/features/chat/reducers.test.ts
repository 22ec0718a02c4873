import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatTrace } from '../../../../shared/contract/chat';
import { finishTurn, leaveConversation, pendingTurn, reopenConversation, turnsFromMessages, updateBackground, updateLast, type Turn } from './reducers';

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
    // The stored trace (with the answer call) replaces the one that came with the sources.
    const early: ChatTrace = { route: { mode: 'BM25', query: 'q', source: 'chosen', thinking: false }, intent: 'SEARCH', searchMode: 'keyword', notes: [], expansion: { seeds: 0, added: 0, depth: 1, decay: 0.7 }, evidenceTokens: 0, budgetTokens: 1 };
    const whole = { ...early, notes: ['after the answer'] };
    expect(finishTurn({ ...streamed, trace: early }, { ...answer, trace: whole }).trace).toBe(whole);
    expect(finishTurn({ ...streamed, trace: early }, answer).trace).toBe(early);
  });
});

describe('background turns (several chats at once)', () => {
  const streaming = (question: string, answer: string): Turn => ({ ...pendingTurn(question), runId: 'r', status: 'streaming', sources: [], answer });
  it('keeps the in-flight turn of a conversation left, updates it, and puts it back in place of the stored question', () => {
    let background = leaveConversation({}, 'c-a', [streaming('Where?', 'In ')]);
    expect(leaveConversation({}, 'c-a', [{ ...pendingTurn('Done?'), status: 'done' }])).toEqual({});
    background = updateBackground(background, 'c-a', (t) => ({ ...t, answer: `${t.answer}config.py` }));
    expect(updateBackground(background, 'c-zzz', (t) => ({ ...t, answer: 'x' }))).toBe(background);
    const stored = turnsFromMessages([{ id: 1, conversationId: 'c-a', role: 'user', content: 'Where?', createdAt: 't' }]);
    const reopened = reopenConversation(background, 'c-a', stored);
    expect(reopened.background).toEqual({});
    expect(reopened.turns.map((t) => [t.question, t.answer, t.status])).toEqual([['Where?', 'In config.py', 'streaming']]);
  });
  it('a background turn that finished gives way to the stored answer', () => {
    const background = { 'c-a': { ...streaming('Where?', 'In config.py'), status: 'done' as const } };
    const stored = turnsFromMessages([{ id: 1, conversationId: 'c-a', role: 'user', content: 'Where?', createdAt: 't' }, { ...answer, conversationId: 'c-a' }]);
    expect(reopenConversation(background, 'c-a', stored)).toEqual({ turns: stored, background: {} });
  });
});
