import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatSource, EventPayload } from '../../../shared/contract';
import { EventBus } from '../../platform/runtime/events';
import { useChatFixture } from '../../testing/chatFixture';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { evidenceBeforeAnswer } from './evidence';
import type { ChatPipeline } from './pipeline';
import type { ConversationStore } from './store';
import { runChatTurn } from './turn';

/*
 * The evidence walk (`cra eval --chat-evidence`) against real turns over the same index: the walk's
 * evidence is what a turn sends as its sources, for a budget that fits, one that is condensed by a
 * model call (the walk makes none) and one that is trimmed.
 */

const fx = useChatFixture();
const { deps, pipeline } = fx;
let server: OllamaTestServer;
let store: ConversationStore;

beforeAll(() => {
  ({ server, store } = fx);
  fx.pipelineFile('small.yaml', 'pipeline:\n  name: small\n  extends: default\n  settings:\n    max_context_tokens: 30\n');
  fx.pipelineFile(
    'trim.yaml',
    'pipeline:\n  name: trim\n  extends: small\n  steps:\n    - id: budget\n      action: check_context_budget\n      on_ok: answer\n      on_over_limit: trim\n    - id: trim\n      action: trim_context\n      next: answer\n',
  );
});

const input = (question: string, conversationId: string) => ({ runId: `r-${conversationId}`, repoId: 'fx', conversationId, question, mode: 'bm25' as const, language: 'en', signal: new AbortController().signal });
const lines = (sources: readonly Pick<ChatSource, 'path' | 'startLine' | 'endLine'>[]) => sources.map((s) => `${s.path}:${s.startLine}-${s.endLine}`);

/** A real turn's sources (the first sources event, and the stored answer's). */
async function turnSources(p: ChatPipeline, question: string, conversationId: string, replies: string[]) {
  server.script.chat.push(...replies.map((text) => ({ text })));
  const events = new EventBus();
  const first: Array<EventPayload<'chat/sources'>> = [];
  events.on('chat/sources', (s) => first.push(s));
  const message = await runChatTurn(deps(p, { events }), input(question, conversationId));
  return { first: first[0]!.sources, stored: message.sources ?? [], trace: message.trace! };
}

describe('the evidence a turn would send before its answer call', () => {
  it('is the sources of a real turn when the evidence fits, and the walk makes no model call', async () => {
    const question = 'Where is load_config defined?';
    const walked = await evidenceBeforeAnswer(deps(pipeline('default')), input(question, 'walk-1'));
    expect(server.requests).toEqual([]);
    expect(walked.calls).toBe(0);
    expect(walked.budget).toBe('fits');
    expect(walked.route).toMatchObject({ mode: 'BM25', source: 'chosen' });
    expect(walked.steps).toEqual(['translate_in_if_needed', 'load_conversation_history', 'route_question', 'fetch_more_context', 'expand_dependency_tree', 'fetch_node_texts', 'check_context_budget']);
    expect(walked.evidence.map((e) => e.path)).toContain('config.py');
    // Nothing was stored: the walk does not append the question.
    expect(store.messages('walk-1')).toEqual([]);
    const turn = await turnSources(pipeline('default'), question, 'turn-1', ['[Answer:] In config.py:4.']);
    expect(lines(walked.evidence)).toEqual(lines(turn.stored));
    expect(lines(walked.evidence)).toEqual(lines(turn.first));
  });

  it('over the budget: the pieces the summarizer reads, which the real turn condenses with a model call and shows as its sources', async () => {
    const question = 'How are the settings loaded by the app?';
    const walked = await evidenceBeforeAnswer(deps(pipeline('small')), input(question, 'walk-2'));
    expect(server.requests).toEqual([]);
    expect(walked.budget).toBe('summarized');
    expect(walked.steps.at(-1)).toBe('summarize_context');
    expect(walked.fetched.length).toBeGreaterThan(walked.evidence.length);
    const turn = await turnSources(pipeline('small'), question, 'turn-2', ['config.py loads JSON; app.py calls load_config.', '[Answer:] See config.py:4.']);
    expect(turn.trace.calls!.map((c) => c.purpose)).toEqual(['evidence-summary', 'answer']);
    expect(turn.trace.rounds![0]!.budget).toBe('summarized');
    expect(lines(walked.evidence)).toEqual(lines(turn.stored));
  });

  it('a pipeline that trims: the best pieces that fit, as the real turn sends them', async () => {
    const question = 'How are the settings loaded by the app?';
    const walked = await evidenceBeforeAnswer(deps(pipeline('trim')), input(question, 'walk-3'));
    expect(walked.budget).toBe('trimmed');
    expect(walked.evidence.length).toBeLessThan(walked.fetched.length);
    const turn = await turnSources(pipeline('trim'), question, 'turn-3', ['[Answer:] See config.py:4.']);
    expect(turn.trace.rounds![0]!.budget).toBe('trimmed');
    expect(lines(walked.evidence)).toEqual(lines(turn.stored));
  });
});
