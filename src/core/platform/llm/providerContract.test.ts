/**
 * One provider contract, run against all three providers: the loopback Ollama server, the loopback
 * OpenAI-compatible server, and the built-in runtime with the real GGUF. Completions carry token
 * counts for the budget, streams deliver deltas that make up the final text, a stream cancelled in
 * the middle stops with CANCELLED, and structured output follows the schema sent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/contract';
import type { Provider } from '../config/schema';
import { openRawDatabase } from '../db/raw';
import { RawCallLog } from '../logs/callLog';
import { routerFromToml } from '../../testing/loopbackModels';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { REAL_GGUF_NAME, realGgufRuntime } from '../../testing/realGguf';
import type { BuiltinProvider } from './builtin/builtinProvider';
import { LlmClient } from './client';

let server: OllamaTestServer;
let builtin: Awaited<ReturnType<typeof realGgufRuntime>>;
beforeAll(async () => {
  [server, builtin] = await Promise.all([OllamaTestServer.start(), realGgufRuntime()]);
});
afterAll(async () => {
  await Promise.all([server?.close(), builtin?.dispose()]);
});
beforeEach(() => {
  server.script.chat = [];
  server.requests.length = 0;
  server.install('qwen3:0.6b', {});
});

const db = openRawDatabase(':memory:');

function clientFor(provider: Provider): LlmClient {
  const model = provider === 'builtin' ? REAL_GGUF_NAME : 'qwen3:0.6b';
  const router = routerFromToml(`[models]\nprovider = "${provider}"\nreasoning = "${model}"\ncoding = "${model}"\nbase_url = "${server.url}"\ncontext_window = 1024\nmax_tokens = 48\n`);
  return new LlmClient({ router: () => router, log: new RawCallLog(db), retry: { attempts: 1 }, providers: { builtin: builtin.provider as BuiltinProvider } });
}

/** The loopback servers answer what the test scripts; the built-in model answers what it answers. */
function script(provider: Provider, reply: Parameters<OllamaTestServer['script']['chat']['push']>[0]): void {
  if (provider !== 'builtin') server.script.chat.push(reply);
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/** A 40-chunk stream whose reader cancels it after the first delta (after `pauseMs` of work on it). */
function cancelAfterFirstDelta(provider: Provider, chunkDelayMs: number, pauseMs: number) {
  script(provider, { chunks: Array.from({ length: 40 }, (_, i) => `w${i} `), chunkDelayMs });
  const controller = new AbortController();
  const stream = clientFor(provider).stream('Once upon a time', { stage: 'chat', maxTokens: 200, signal: controller.signal });
  const deltas: string[] = [];
  const read = (async () => {
    for await (const d of stream) {
      deltas.push(d);
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      controller.abort();
    }
  })();
  return { stream, read, deltas };
}

describe.each(['ollama', 'openai_compat', 'builtin'] as const)('provider contract: %s', (provider) => {
  it('completes with token counts for the budget', async () => {
    script(provider, { text: 'Once upon a time there was a cat.', promptTokens: 21, completionTokens: 9 });
    const result = await clientFor(provider).complete('Once upon a time', { system: 'Tell a story.', stage: 'chat', maxTokens: 24 });
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.promptTokens).toBeGreaterThan(0);
    expect(result.completionTokens).toBeGreaterThan(0);
    expect(result.completionTokens).toBeLessThanOrEqual(24);
    const row = db.prepare('select prompt_tokens, completion_tokens, provider from model_calls order by id desc limit 1').get() as Record<string, unknown>;
    expect(row).toEqual({ prompt_tokens: result.promptTokens, completion_tokens: result.completionTokens, provider });
  });

  it('streams deltas that make up the final text', async () => {
    script(provider, { chunks: ['Once ', 'upon ', 'a ', 'time.'], promptTokens: 12, completionTokens: 4 });
    const stream = clientFor(provider).stream('Once upon a time', { stage: 'chat', maxTokens: 24 });
    const deltas: string[] = [];
    for await (const d of stream) deltas.push(d);
    const final = await stream.final;
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(final.text);
    expect(final.completionTokens).toBeGreaterThan(0);
  });

  it('stops a stream cancelled in the middle with CANCELLED, and serves the next call', async () => {
    const { stream, read, deltas } = cancelAfterFirstDelta(provider, 50, 0);
    expect((await failure(read)).code).toBe('CANCELLED');
    expect((await failure(stream.final)).code).toBe('CANCELLED');
    expect(deltas).toHaveLength(1);
    script(provider, { text: 'again' });
    expect((await clientFor(provider).complete('Once upon a time', { stage: 'chat', maxTokens: 8 })).completionTokens).toBeGreaterThan(0);
  });

  it('yields nothing after a cancel, not even deltas that were already queued', async () => {
    // More deltas arrive while the reader is busy with the first; the cancel comes after them.
    const { read, deltas } = cancelAfterFirstDelta(provider, 0, 150);
    expect((await failure(read)).code).toBe('CANCELLED');
    expect(deltas).toHaveLength(1);
  });

  it('returns structured output that follows the schema sent', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string', enum: ['yes', 'no'] } }, required: ['answer'], additionalProperties: false };
    script(provider, { json: { answer: 'no' } });
    const result = await clientFor(provider).complete('Is the sky green?', { stage: 'scope', format: schema, maxTokens: 24, temperature: 0 });
    const parsed = JSON.parse(result.text) as { answer: string };
    expect(Object.keys(parsed)).toEqual(['answer']);
    expect(['yes', 'no']).toContain(parsed.answer);
  });
});
