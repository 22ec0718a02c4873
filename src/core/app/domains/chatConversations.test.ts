import { beforeAll, describe, expect, it, vi } from 'vitest';
import { chatRequests, type EventPayload } from '../../../shared/contract';
import type { TestRepo } from '../../testing/gitRepo';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { useChatFixture } from '../../testing/chatFixture';

const fx = useChatFixture({ engineConfig: '' });
const { core } = fx;
let server: OllamaTestServer;
let repo: TestRepo;
let repoId: string;

beforeAll(() => ({ server, repo, repoId } = fx));

/** Ask in keyword mode (no routing call) and wait for the run. */
async function ask(question: string, conversationId?: string): Promise<string> {
  const started = await core.handlers['chat/ask']({ repoId, question, mode: 'bm25', ...(conversationId ? { conversationId } : {}) });
  await core.runs.wait(started.runId);
  return started.conversationId;
}

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** The first chat event of a conversation with this key. */
function first<K extends 'chat/token' | 'chat/done'>(key: K, conversationId: string): Promise<EventPayload<K>> {
  return new Promise((resolve) => {
    const stop = core.events.on(key, (e) => {
      if ((e as { conversationId: string }).conversationId !== conversationId) return;
      stop();
      resolve(e as EventPayload<K>);
    });
  });
}

describe('chat conversations', () => {
  it('renames, exports as markdown and deletes a conversation; the others stay', async () => {
    server.script.chat.push({ text: 'Read by `load_config` [config.py:4-7]; see also [gone.py:3].' });
    const a = await ask('Where are the settings loaded?');
    server.script.chat.push({ text: 'By main [app.py:5].' });
    await ask('And who calls it?', a);
    server.script.chat.push({ text: 'Over SMTP [mailer.py:1-3].' });
    const b = await ask('How is mail sent?');

    const renamed = await core.handlers['chat/rename']({ repoId, conversationId: a, title: 'Settings loading' });
    expect(renamed).toMatchObject({ conversationId: a, title: 'Settings loading', messages: 4 });
    const listed = (await core.handlers['chat/history']({ repoId })).conversations;
    expect(listed.map((c) => [c.conversationId, c.title])).toEqual([
      [b, 'How is mail sent?'],
      [a, 'Settings loading'],
    ]);

    const exported = await core.handlers['chat/export']({ repoId, conversationId: a });
    expect(exported.fileName).toBe('settings-loading.md');
    const md = exported.markdown;
    expect(md.startsWith('# Settings loading\n')).toBe(true);
    expect(md).toContain('## Where are the settings loaded?\n\nRead by `load_config` [config.py:4-7]; see also [gone.py:3].');
    expect(md).toMatch(/\*\*Sources\*\*\n\n- `[\w/.]+:\d+-\d+` \(\w+, score [\d.]+\)/);
    expect(md).toMatch(/\n- `config\.py:\d+-\d+` \(seed, score [\d.]+\)/);
    expect(md).toContain('> Unverified citations (no such file or lines in the index): `[gone.py:3]`');
    expect(md.indexOf('## Where are the settings loaded?')).toBeLessThan(md.indexOf('## And who calls it?'));
    expect(md).toContain('By main [app.py:5].');
    expect(md).not.toContain('SMTP');

    // A renamed conversation keeps its title when it goes on.
    server.script.chat.push({ text: 'Yes.' });
    await ask('Is it JSON?', a);
    expect((await core.handlers['chat/history']({ repoId })).conversations[0]).toMatchObject({ conversationId: a, title: 'Settings loading', messages: 6 });

    expect(await core.handlers['chat/delete']({ repoId, conversationId: a })).toEqual({ deleted: 6 });
    const after = await core.handlers['chat/history']({ repoId, conversationId: a });
    expect(after.messages).toEqual([]);
    expect(after.conversations.map((c) => c.conversationId)).toEqual([b]);
    // A new conversation with the same id starts afresh: the old title went with it.
    server.script.chat.push({ text: 'Fresh.' });
    await ask('A new start?', a);
    expect((await core.handlers['chat/history']({ repoId })).conversations[0]).toMatchObject({ conversationId: a, title: 'A new start?', messages: 2 });
  });

  it('refuses to rename, export or delete a conversation the repository does not have, and an empty title', async () => {
    for (const call of [
      () => core.handlers['chat/rename']({ repoId, conversationId: 'c-missing', title: 'x' }),
      () => core.handlers['chat/export']({ repoId, conversationId: 'c-missing' }),
      () => core.handlers['chat/delete']({ repoId, conversationId: 'c-missing' }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('no conversation c-missing') });
    }
    const parsed = chatRequests['chat/rename'].input.safeParse({ repoId, conversationId: 'c-1', title: '   ' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('title must not be empty');
  });

  it('two turns stream at once in two conversations, each getting only its own tokens and answer', async () => {
    const holdA = gate();
    const holdB = gate();
    server.script.respond = (prompt) =>
      prompt.includes('alpha')
        ? { chunks: ['Alpha one ', 'alpha two [config.py:4].'], holdAfterFirst: holdA.promise }
        : { chunks: ['Beta one ', 'beta two [mailer.py:1].'], holdAfterFirst: holdB.promise };
    const tokens = new Map<string, string>();
    const stop = core.events.on('chat/token', (e) => tokens.set(e.conversationId, (tokens.get(e.conversationId) ?? '') + e.text));
    try {
      const a = await core.handlers['chat/ask']({ repoId, question: 'alpha: where is load_config?', mode: 'bm25', conversationId: 'c-alpha' });
      await first('chat/token', 'c-alpha');
      const b = await core.handlers['chat/ask']({ repoId, question: 'beta: where is send_mail?', mode: 'bm25', conversationId: 'c-beta' });
      await first('chat/token', 'c-beta');
      // Both answer calls are in flight now, each held after its first chunk.
      expect(server.requests.filter((r) => r.path === '/api/chat')).toHaveLength(2);
      expect(core.runs.list().filter((r) => [a.runId, b.runId].includes(r.runId)).map((r) => r.status)).toEqual(['running', 'running']);
      holdB.open();
      await core.runs.wait(b.runId);
      holdA.open();
      await core.runs.wait(a.runId);
    } finally {
      stop();
    }
    expect(tokens.get('c-alpha')).toBe('Alpha one alpha two [config.py:4].');
    expect(tokens.get('c-beta')).toBe('Beta one beta two [mailer.py:1].');
    const alpha = (await core.handlers['chat/history']({ repoId, conversationId: 'c-alpha' })).messages;
    const beta = (await core.handlers['chat/history']({ repoId, conversationId: 'c-beta' })).messages;
    expect(alpha.map((m) => m.content)).toEqual(['alpha: where is load_config?', 'Alpha one alpha two [config.py:4].']);
    expect(beta.map((m) => m.content)).toEqual(['beta: where is send_mail?', 'Beta one beta two [mailer.py:1].']);
    expect(alpha[1]!.sources!.map((s) => s.path)).toContain('config.py');
    expect(beta[1]!.sources!.map((s) => s.path)).toContain('mailer.py');
    expect(alpha[1]!.citations!.map((c) => c.path)).toEqual(['config.py']);
  });

  it('Stop aborts the model call at once: the loopback server sees the request closed while it still holds the reply', async () => {
    const never = gate(); // never opened: only Stop ends this call
    server.script.chat.push({ chunks: ['The settings ', 'are read by load_config.'], holdAfterFirst: never.promise });
    const started = await core.handlers['chat/ask']({ repoId, question: 'Where are the settings loaded?', mode: 'bm25' });
    const done = first('chat/done', started.conversationId);
    await first('chat/token', started.conversationId);
    const call = server.requests.find((r) => r.path === '/api/chat')!;
    expect(call.aborted).toBeUndefined();
    // Deleting the conversation now would let the answer bring it back: refused until it stops.
    await expect(core.handlers['chat/delete']({ repoId, conversationId: started.conversationId })).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringContaining('Stop it first') });
    core.runs.cancel(started.runId);
    await expect(core.runs.wait(started.runId)).rejects.toMatchObject({ code: 'CANCELLED' });
    await vi.waitFor(() => expect(call.aborted).toBe(true));
    expect((await done).message).toMatchObject({ status: 'cancelled', content: 'The settings' });
    expect(await core.handlers['chat/delete']({ repoId, conversationId: started.conversationId })).toEqual({ deleted: 2 });
  });
});

describe('chat node cache and the index', () => {
  it('after the repository is re-indexed a turn sends the new body, not a cached one', async () => {
    server.script.chat.push({ text: 'First.' });
    const conversation = await ask('Where is load_config?');
    const sent = () => (server.requests.filter((r) => r.path === '/api/chat').at(-1)!.body as { messages: Array<{ content: string }> }).messages.at(-1)!.content;
    expect(sent()).toContain('def load_config(path):');
    repo.write('config.py', 'import json\n\n\ndef load_config(path, strict=True):\n    """Load the settings; strict mode refuses unknown keys."""\n    return json.load(open(path))\n');
    const reindex = await core.handlers['repos/reindex']({ repoId, full: false });
    await core.runs.wait(reindex.runId);
    server.script.chat.push({ text: 'Second.' });
    await ask('Where is load_config?', conversation);
    expect(sent()).toContain('def load_config(path, strict=True):');
    expect(sent().split('## Evidence')[1]).not.toContain('def load_config(path):');
  });
});
