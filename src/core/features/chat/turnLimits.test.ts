import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../shared/contract';
import { openRawDatabase } from '../../platform/db/raw';
import { useChatFixture } from '../../testing/chatFixture';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { repoPaths } from '../../platform/layout';

/*
 * The limits of one question (issue #22, [chat] in config.toml), through the chat domain with the
 * loopback model server: an answer of ~8 MB is stored and shown cut at max_answer_kb (the
 * default, 256) with a note, and a repository pipeline that loops answer → answer stops at
 * max_model_calls (12 here) with an error naming its file and the loop.
 */

const BUDGET = 12;
const fx = useChatFixture({ engineConfig: `[chat]\nmax_model_calls = ${BUDGET}\n` });
let server: OllamaTestServer;

beforeAll(() => ({ server } = fx));
beforeEach(() => rmSync(join(fx.repo.root, '.cleanroom'), { recursive: true, force: true }));

/** Ask through the chat domain; the run's end, the tokens streamed and the stored answer. */
async function ask(question: string, options: { pipeline?: string } = {}) {
  const tokens: string[] = [];
  const done: Array<EventPayload<'chat/done'>> = [];
  const stops = [fx.core.events.on('chat/token', (e) => tokens.push(e.text)), fx.core.events.on('chat/done', (e) => done.push(e))];
  try {
    const { runId, conversationId } = await fx.core.handlers['chat/ask']({ repoId: fx.repoId, question, mode: 'bm25', ...options });
    const error = await fx.core.runs.wait(runId).then(
      () => undefined,
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    const status = fx.core.runs.list().find((r) => r.runId === runId)?.status;
    return { status, error, conversationId, tokens: tokens.join(''), message: done[0]!.message };
  } finally {
    stops.forEach((s) => s());
  }
}

const answerCalls = () => fx.server.requests.filter((r) => r.path === '/api/chat').length;

describe('chat limits', () => {
  it('an ~8 MB answer is shown and stored cut at 256 KB (the default) with a note, and the conversation opens again', async () => {
    const chunk = 'All work and no play [mailer.py:1-3] makes a long answer. '.repeat(1100); // ~64 KB
    const chunks = ['[Answer:] ', ...Array.from({ length: 128 }, () => chunk)];
    expect(chunks.join('').length).toBeGreaterThan(8_000_000);
    server.script.chat.push({ chunks });
    const { status, error, conversationId, tokens, message } = await ask('Write me a very long answer');
    expect(error).toBeUndefined();
    expect(status).toBe('done');

    const note = '(answer cut at 256 KB: the model wrote more; [chat].max_answer_kb in config.toml sets the limit)';
    expect(message.content.endsWith(note)).toBe(true);
    const body = message.content.slice(0, -note.length).trimEnd();
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(256 * 1024);
    expect(Buffer.byteLength(body)).toBeGreaterThan(255 * 1024);
    expect(body.startsWith('All work and no play')).toBe(true);
    // What streamed is what was stored.
    expect(tokens.trim()).toBe(message.content);
    expect(message.trace!.notes).toContainEqual(expect.stringMatching(/^The answer was cut at 256 KB \(\[chat\]\.max_answer_kb\): \d+ KB more were left out\.$/));

    const { messages } = await fx.core.handlers['chat/history']({ repoId: fx.repoId, conversationId });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]!.content).toBe(message.content);
    const raw = openRawDatabase(repoPaths(fx.dataDir, fx.repoId).raw);
    try {
      const stored = raw.prepare(`select length(cast(content as blob)) as bytes from chat_messages where id = ?`).get(message.id) as { bytes: number };
      expect(stored.bytes).toBeLessThan(256 * 1024 + 200);
    } finally {
      raw.close();
    }
  }, 120_000);

  it('a repository pipeline that loops answer → answer stops at [chat].max_model_calls, naming its file and the loop', async () => {
    fx.pipelineFile(
      'loop.yaml',
      ['pipeline:', '  name: looper', '  settings:', '    entry_step_id: answer', '  steps:', '    - id: answer', '      action: answer', '      on_answer: answer', '      on_request: answer', ''].join('\n'),
    );
    server.script.respond = () => ({ text: '[Answer:] Again.' });
    const { status, error, message } = await ask('Loop forever', { pipeline: 'looper' });
    expect(status).toBe('failed');
    const expected = `The chat pipeline "looper" (.cleanroom/pipelines/loop.yaml) used its budget of ${BUDGET} model calls for one question: its steps loop answer (line 6) → answer. Give the loop an exit (a loop_guard step, as the built-in default pipeline has), or ask with another pipeline.`;
    expect(error).toBe(expected);
    expect(message).toMatchObject({ status: 'failed', error: expected });
    // The refused call was not made: exactly the budget reached the server.
    expect(answerCalls()).toBe(BUDGET);
    expect(message.trace!.calls).toHaveLength(BUDGET);
  }, 120_000);
});
