import { beforeEach, describe, expect, it } from 'vitest';
import { AppError, type ChatPipelines, type ConversationSummary, type ModelCallSummary } from '../../../../shared/contract';
import { setClientForTests, type Client } from '../../lib/client';
import { pendingTurn } from './reducers';
import { chatSelectors, useChatStore } from './store';

const summary = (conversationId: string, title: string): ConversationSummary => ({ conversationId, title, messages: 2, updatedAt: 't' });
const pipelines = (defaultPipeline: string): ChatPipelines => ({ pipelines: [], problems: [], refused: [], defaultPipeline });
const call = (id: number, stage: string): ModelCallSummary => ({ id, createdAt: 't', runId: 'chat-1', stage, role: null, provider: 'ollama', model: 'm', promptTokens: 1, completionTokens: 1, latencyMs: 1, errorCode: null, preview: '' });

let calls: Array<{ method: string; input: Record<string, unknown> }>;

beforeEach(() => {
  calls = [];
  setClientForTests({
    call: (async (method: string, input: Record<string, unknown>) => {
      calls.push({ method, input });
      if (method === 'chat/rename') return summary(String(input.conversationId), String(input.title));
      if (method === 'chat/delete') {
        if (input.conversationId === 'c-gone') throw new AppError('NOT_FOUND', 'shop has no conversation c-gone');
        return { deleted: 2 };
      }
      if (method === 'logs/list') return { total: 2, calls: [call(8, 'chat'), call(7, 'routing')] };
      if (method === 'chat/ask') {
        const run = { runId: 'chat-9', kind: 'chat', subject: { repoId: 'shop', conversationId: input.conversationId ?? 'c-new', question: input.question }, title: 'Chat', status: 'running', startedAt: 't' };
        return { run, runId: run.runId, conversationId: run.subject.conversationId };
      }
      if (method === 'run/attach') return { run: { runId: input.runId, status: 'running' }, events: [], lastSeq: 0, firstSeq: 1 };
      if (method === 'run/list') return [];
      if (method === 'chat/history') return { conversations: [], messages: [] };
      if (method === 'chat/pipelines') return pipelines('default');
      if (method === 'models/assignments') return { rows: [] };
      if (method === 'chat/setDefaultPipeline') {
        if (input.pipeline === 'broken') throw new AppError('VALIDATION', 'The chat pipeline "broken" cannot be the default of shop: refused');
        return { ...pipelines((input.pipeline as string | null) ?? 'default'), repo: { id: 'shop' } };
      }
      throw new AppError('UNSUPPORTED', `not in this test: ${method}`);
    }) as Client['call'],
    subscribe: () => () => {},
  });
  useChatStore.setState({ repoId: 'shop', conversationId: 'c-a', conversations: [summary('c-a', 'A'), summary('c-b', 'B')], turns: [pendingTurn('q')], error: null, callsByRun: {}, pipelines: null, pipeline: null, language: 'auto', pipelineError: null, draft: '' });
});

describe('chat store: conversations', () => {
  it('rename replaces the conversation in the list', async () => {
    await useChatStore.getState().rename('shop', 'c-b', 'Better');
    expect(useChatStore.getState().conversations.map((c) => c.title)).toEqual(['A', 'Better']);
    expect(calls).toEqual([{ method: 'chat/rename', input: { repoId: 'shop', conversationId: 'c-b', title: 'Better' } }]);
  });

  it('deleting another conversation keeps the one shown; deleting the one shown starts a new, empty one', async () => {
    await useChatStore.getState().remove('shop', 'c-b');
    expect(useChatStore.getState()).toMatchObject({ conversationId: 'c-a', conversations: [summary('c-a', 'A')] });
    expect(useChatStore.getState().turns).toHaveLength(1);
    await useChatStore.getState().remove('shop', 'c-a');
    const s = useChatStore.getState();
    expect(s.conversations).toEqual([]);
    expect(s.turns).toEqual([]);
    // A new conversation: the engine names it when its first question is asked.
    expect(s.conversationId).toBeNull();
  });

  it('a failed delete keeps the list and stores the error', async () => {
    await useChatStore.getState().remove('shop', 'c-gone');
    expect(useChatStore.getState().conversations).toHaveLength(2);
    expect(useChatStore.getState().error).toEqual({ code: 'NOT_FOUND', message: 'shop has no conversation c-gone' });
  });

  it("reads a run's model calls from the repository's log once, oldest first, and again when refreshed", async () => {
    await useChatStore.getState().loadCalls('chat-1');
    await useChatStore.getState().loadCalls('chat-1');
    expect(calls).toEqual([{ method: 'logs/list', input: { repoId: 'shop', runId: 'chat-1', errorsOnly: false, limit: 100, offset: 0 } }]);
    expect(useChatStore.getState().callsByRun['chat-1']).toEqual({ calls: [call(7, 'routing'), call(8, 'chat')] });
    await useChatStore.getState().loadCalls('chat-1', true);
    expect(calls).toHaveLength(2);
  });
});

describe('chat store: pipeline and language of a conversation', () => {
  const ask = () => calls.filter((c) => c.method === 'chat/ask').at(-1)!.input;

  it("asks with the repository's default pipeline until one is chosen; the conversation keeps the one it ran", async () => {
    useChatStore.setState({ turns: [], pipelines: pipelines('team') });
    useChatStore.getState().setDraft('Where?');
    await useChatStore.getState().ask('shop');
    expect(ask()).toEqual({ repoId: 'shop', question: 'Where?', conversationId: 'c-a', mode: 'auto', pipeline: 'team' });
    expect(useChatStore.getState().pipeline).toBe('team');
    // A later change of the default does not move this conversation.
    useChatStore.setState({ pipelines: pipelines('default'), turns: [] });
    useChatStore.getState().setDraft('And?');
    await useChatStore.getState().ask('shop');
    expect(ask()).toMatchObject({ pipeline: 'team' });
    // A new conversation starts on the default again.
    useChatStore.getState().newConversation();
    expect(chatSelectors.pipeline(useChatStore.getState())).toBe('default');
  });

  it('sends a chosen language and none for auto; before the pipelines are read the engine picks the pipeline', async () => {
    useChatStore.setState({ turns: [] });
    useChatStore.getState().setLanguage('pl');
    useChatStore.getState().setDraft('Gdzie?');
    await useChatStore.getState().ask('shop');
    expect(ask()).toEqual({ repoId: 'shop', question: 'Gdzie?', conversationId: 'c-a', mode: 'auto', language: 'pl' });
    useChatStore.setState({ turns: [] });
    useChatStore.getState().setLanguage('auto');
    useChatStore.getState().setDraft('Where?');
    await useChatStore.getState().ask('shop');
    expect(ask()).not.toHaveProperty('language');
  });

  it('a language chosen for one conversation does not carry over to a new conversation or another repository', async () => {
    useChatStore.setState({ turns: [] });
    useChatStore.getState().setLanguage('pl');
    useChatStore.getState().newConversation();
    expect(useChatStore.getState().language).toBe('auto');
    useChatStore.getState().setDraft('Where is the discount computed?');
    await useChatStore.getState().ask('shop');
    expect(ask()).not.toHaveProperty('language');
    // Another repository starts a new conversation, detected too.
    useChatStore.getState().setLanguage('de');
    await useChatStore.getState().load('farm');
    expect(useChatStore.getState()).toMatchObject({ repoId: 'farm', language: 'auto' });
    // Deleting the conversation shown starts a new one, detected.
    useChatStore.getState().setLanguage('pl');
    useChatStore.setState({ conversationId: 'c-f' });
    await useChatStore.getState().remove('farm', 'c-f');
    expect(useChatStore.getState().language).toBe('auto');
  });

  it('opening a conversation takes up its pipeline and language', async () => {
    useChatStore.setState({ conversations: [{ ...summary('c-b', 'B'), pipeline: 'team', language: 'pl' }, summary('c-c', 'C')], pipelines: pipelines('default') });
    await useChatStore.getState().open('shop', 'c-b');
    expect(useChatStore.getState()).toMatchObject({ conversationId: 'c-b', pipeline: 'team', language: 'pl' });
    await useChatStore.getState().open('shop', 'c-c');
    expect(useChatStore.getState()).toMatchObject({ conversationId: 'c-c', pipeline: null, language: 'auto' });
  });

  it("making a pipeline the repository's default updates the list; a refusal is kept as the pipeline error", async () => {
    await useChatStore.getState().setDefaultPipeline('shop', 'team');
    expect(useChatStore.getState().pipelines).toEqual(pipelines('team'));
    await useChatStore.getState().setDefaultPipeline('shop', 'broken');
    expect(useChatStore.getState().pipelines).toEqual(pipelines('team'));
    expect(useChatStore.getState().pipelineError).toEqual({ code: 'VALIDATION', message: 'The chat pipeline "broken" cannot be the default of shop: refused' });
  });
});

describe('chat store: Retry', () => {
  it('asks the failed question again in the same conversation, with its pipeline and language; nothing while an answer is in flight', async () => {
    const failed = { ...pendingTurn('Where is the discount computed?'), runId: 'chat-1', status: 'failed' as const, error: 'model server stopped' };
    useChatStore.setState({ turns: [failed], pipeline: 'team', language: 'pl', mode: 'keyword' });
    await useChatStore.getState().retry('shop');
    expect(calls).toEqual([{ method: 'chat/ask', input: { repoId: 'shop', question: 'Where is the discount computed?', conversationId: 'c-a', mode: 'keyword', pipeline: 'team', language: 'pl' } }]);
    const turns = useChatStore.getState().turns;
    expect(turns).toHaveLength(2);
    expect(turns[1]).toMatchObject({ question: 'Where is the discount computed?', runId: 'chat-9', status: 'retrieving' });
    // The new turn is in flight: a second Retry asks nothing.
    await useChatStore.getState().retry('shop');
    expect(calls).toHaveLength(1);
  });
});

describe('chat store: following the run of a turn', () => {
  it('takes what the run did before the answer came from its log, then the live events, each once', async () => {
    const listeners = new Map<string, (payload: unknown) => void>();
    const token = (seq: number, text: string) => ({ runId: 'chat-42', conversationId: 'c-new', text, seq });
    setClientForTests({
      call: (async (method: string, input: Record<string, unknown>) => {
        if (method === 'chat/ask') {
          const run = { runId: 'chat-42', kind: 'chat', subject: { repoId: 'shop', conversationId: 'c-new', question: input.question }, title: 'Chat', status: 'running', startedAt: 't' };
          return { run, runId: run.runId, conversationId: 'c-new' };
        }
        if (method === 'run/attach') {
          // The answer had begun before chat/ask answered: its first events are in the run's log.
          const sources = { runId: 'chat-42', repoId: 'shop', conversationId: 'c-new', sources: [], trace: null, seq: 2 };
          return { run: { runId: 'chat-42', status: 'running' }, events: [{ seq: 2, event: 'chat/sources', payload: sources }, { seq: 3, event: 'chat/token', payload: token(3, 'Hel') }], lastSeq: 3, firstSeq: 1 };
        }
        if (method === 'chat/history') return { conversations: [], messages: [] };
        if (method === 'chat/pipelines') return pipelines('default');
        if (method === 'models/assignments') return { rows: [] };
        throw new AppError('UNSUPPORTED', `not in this test: ${method}`);
      }) as Client['call'],
      subscribe: ((event: string, listener: (payload: unknown) => void) => {
        listeners.set(event, listener);
        return () => listeners.delete(event);
      }) as Client['subscribe'],
    });
    useChatStore.setState({ conversationId: null, turns: [], background: {} });
    useChatStore.getState().setDraft('Where?');
    await useChatStore.getState().ask('shop');
    await new Promise((resolve) => setTimeout(resolve, 0));
    // A live event the log already gave is dropped; the next one is applied.
    listeners.get('chat/token')?.(token(3, 'Hel'));
    listeners.get('chat/token')?.(token(4, 'lo'));
    expect(useChatStore.getState().conversationId).toBe('c-new');
    expect(useChatStore.getState().turns).toEqual([expect.objectContaining({ question: 'Where?', runId: 'chat-42', status: 'streaming', answer: 'Hello' })]);
  });

  it('a second question of a conversation stays one turn when its run/started event comes before chat/ask answers', async () => {
    const listeners = new Map<string, (payload: unknown) => void>();
    const run = { runId: 'chat-7', kind: 'chat', subject: { repoId: 'shop', conversationId: 'c-a', question: 'And then?' }, title: 'Chat', status: 'running', startedAt: 't' };
    setClientForTests({
      call: (async (method: string) => {
        if (method === 'chat/ask') {
          // The engine announces the run to every client before this request's answer arrives.
          listeners.get('run/started')?.(run);
          return { run, runId: run.runId, conversationId: 'c-a' };
        }
        if (method === 'run/attach') return { run, events: [], lastSeq: 0, firstSeq: 1 };
        throw new AppError('UNSUPPORTED', `not in this test: ${method}`);
      }) as Client['call'],
      subscribe: ((event: string, listener: (payload: unknown) => void) => {
        listeners.set(event, listener);
        return () => listeners.delete(event);
      }) as Client['subscribe'],
    });
    const first = { ...pendingTurn('Where?'), runId: 'chat-6', status: 'done' as const, answer: 'Here.' };
    useChatStore.setState({ conversationId: 'c-a', turns: [first], background: {} });
    const stop = useChatStore.getState().listen();
    useChatStore.getState().setDraft('And then?');
    await useChatStore.getState().ask('shop');
    await new Promise((resolve) => setTimeout(resolve, 0));
    listeners.get('chat/token')?.({ runId: 'chat-7', conversationId: 'c-a', text: 'Then', seq: 1 });
    stop();
    expect(useChatStore.getState().turns).toEqual([first, expect.objectContaining({ question: 'And then?', runId: 'chat-7', answer: 'Then' })]);
  });
});
