import { beforeAll, describe, expect, it } from 'vitest';
import type { EventKey, EventPayload } from '../../../shared/contract';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { useChatFixture } from '../../testing/chatFixture';

const fx = useChatFixture({ engineConfig: '' });
const { core } = fx;
let server: OllamaTestServer;
let repoId: string;

beforeAll(() => ({ server, repoId } = fx));

type Seen = { key: EventKey; payload: unknown };
/** Record the chat events of the run a request starts, in order. */
function recordChat(): { seen: Seen[]; stop(): void } {
  const seen: Seen[] = [];
  const stops = (['chat/sources', 'chat/token', 'chat/done'] as const).map((key) => core.events.on(key, (payload) => seen.push({ key, payload })));
  return { seen, stop: () => stops.forEach((s) => s()) };
}
const of = <K extends EventKey>(seen: Seen[], key: K) => seen.filter((s) => s.key === key).map((s) => s.payload as EventPayload<K>);

describe('chat domain', () => {
  it('routes, emits the sources before the first token, streams the answer without thinking, checks its citations and stores the turn', async () => {
    server.script.chat.push({ text: '<think>keywords</think>\n[BM25:] load_config' });
    server.script.chat.push({ chunks: ['<think>I should cite', ' config.py</think>', '[Answer:] Settings are read by ', '`load_config` [config.py:4-7]', ' and imported by [app.py:1]; see [mailer.py:2]; not in [secret.py:1].'] });
    const events = recordChat();
    const { runId, conversationId } = await core.handlers['chat/ask']({ repoId, question: 'Where are the settings loaded?', mode: 'auto' });
    await core.runs.wait(runId);
    events.stop();

    expect(events.seen[0]?.key).toBe('chat/sources');
    expect(events.seen.at(-1)?.key).toBe('chat/done');
    const [sources] = of(events.seen, 'chat/sources');
    expect(sources!.trace).toMatchObject({ route: { mode: 'BM25', query: 'load_config', source: 'model', thinking: true }, intent: 'SEARCH', searchMode: 'keyword' });
    expect(sources!.sources[0]).toMatchObject({ path: 'config.py', role: 'seed' });
    const tokens = of(events.seen, 'chat/token').map((t) => t.text).join('');
    expect(tokens).toBe('Settings are read by `load_config` [config.py:4-7] and imported by [app.py:1]; see [mailer.py:2]; not in [secret.py:1].');
    const [done] = of(events.seen, 'chat/done');
    expect(done!.message).toMatchObject({ role: 'assistant', status: 'done', content: tokens, conversationId });
    expect(done!.message.citations!.map((c) => [c.path, c.status])).toEqual([
      ['config.py', 'source'],
      ['app.py', 'source'],
      ['mailer.py', 'indexed'],
      ['secret.py', 'unverified'],
    ]);

    // The routing call and the answer call, on their stages, the answer with the evidence and its lines.
    const calls = server.requests.filter((r) => r.path === '/api/chat').map((r) => r.body as { messages: Array<{ content: string }> });
    expect(calls).toHaveLength(2);
    expect(calls[1]!.messages.at(-1)!.content).toMatch(/\[Source: config\.py:\d+-\d+\]\n```\n[\s\S]*def load_config\(path\):/);

    const history = await core.handlers['chat/history']({ repoId, conversationId });
    expect(history.messages.map((m) => [m.role, m.content.slice(0, 20)])).toEqual([
      ['user', 'Where are the settin'],
      ['assistant', 'Settings are read by'],
    ]);
    expect(history.conversations[0]).toMatchObject({ conversationId, title: 'Where are the settings loaded?', messages: 2 });
  });

  it('a follow-up in the same conversation sends the earlier turn; a chosen mode makes no routing call', async () => {
    server.script.chat.push({ text: 'First answer [config.py:4]' });
    const first = await core.handlers['chat/ask']({ repoId, question: 'What reads app.json?', mode: 'bm25' });
    await core.runs.wait(first.runId);
    server.script.chat.push({ text: 'Second answer' });
    const second = await core.handlers['chat/ask']({ repoId, question: 'And who calls it?', conversationId: first.conversationId, mode: 'bm25' });
    await core.runs.wait(second.runId);
    const calls = server.requests.filter((r) => r.path === '/api/chat').map((r) => r.body as { messages: Array<{ content: string }> });
    expect(calls).toHaveLength(2);
    expect(calls[1]!.messages.at(-1)!.content).toContain('## Conversation so far\nUser: What reads app.json?\nAssistant: First answer [config.py:4]');
    const history = await core.handlers['chat/history']({ repoId, conversationId: first.conversationId });
    expect(history.messages).toHaveLength(4);
  });

  it('a garbage router reply falls back to keyword search with the reason in the trace', async () => {
    server.script.chat.push({ text: 'I think you should search for load_config.' });
    server.script.chat.push({ text: 'ok' });
    const events = recordChat();
    const { runId } = await core.handlers['chat/ask']({ repoId, question: 'Where is load_config defined?', mode: 'auto' });
    await core.runs.wait(runId);
    events.stop();
    const [sources] = of(events.seen, 'chat/sources');
    expect(sources!.trace.route).toMatchObject({ mode: 'BM25', source: 'fallback', reason: 'the reply had no [MODE:] prefix', query: 'Where is load_config defined?' });
    expect(sources!.sources[0]?.path).toBe('config.py');
  });

  it('Stop mid-stream ends the run cancelled and stores what streamed, marked cancelled', async () => {
    server.script.chat.push({ chunks: ['Part one. ', 'part two ', 'part three'], chunkDelayMs: 400 });
    const events = recordChat();
    const firstToken = new Promise<void>((resolve) => core.events.on('chat/token', () => resolve()));
    const { runId, conversationId } = await core.handlers['chat/ask']({ repoId, question: 'Where is send_mail?', mode: 'bm25' });
    await firstToken;
    core.runs.cancel(runId);
    await expect(core.runs.wait(runId)).rejects.toMatchObject({ code: 'CANCELLED' });
    events.stop();
    const [done] = of(events.seen, 'chat/done');
    expect(done!.message).toMatchObject({ status: 'cancelled', content: 'Part one.' });
    expect(core.runs.list().find((r) => r.runId === runId)?.status).toBe('cancelled');
    expect((await core.handlers['chat/history']({ repoId, conversationId })).messages.at(-1)?.status).toBe('cancelled');
  });

  it('a failing answer model ends the run failed, after the sources, with the error stored', async () => {
    server.script.chat.push({ fault: 'unknownModel' });
    const events = recordChat();
    const { runId } = await core.handlers['chat/ask']({ repoId, question: 'Where is send_mail?', mode: 'bm25' });
    await expect(core.runs.wait(runId)).rejects.toMatchObject({ message: expect.stringContaining('qwen3:0.6b') });
    events.stop();
    expect(events.seen.map((s) => s.key)).toEqual(['chat/sources', 'chat/done']);
    expect(of(events.seen, 'chat/done')[0]!.message).toMatchObject({ status: 'failed', error: expect.stringContaining('qwen3:0.6b') });
  });

  it('refuses an unknown repository and an empty question before any run', async () => {
    await expect(core.handlers['chat/ask']({ repoId: 'nope', question: 'x', mode: 'auto' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
