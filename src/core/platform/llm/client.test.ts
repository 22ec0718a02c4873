import { beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/contract';
import type { Provider } from '../config/schema';
import type { Db } from '../db/open';
import { clientFromToml, useLoopbackModels } from '../../testing/loopbackModels';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import type { LlmClient } from './client';

const loopback = useLoopbackModels({ 'qwen3:0.6b': {}, 'nomic-embed-text': { family: 'nomic-bert' } });
let server: OllamaTestServer;
let db: Db;

beforeEach(() => ({ server, db } = loopback));

function clientFor(provider: Provider, baseUrl = server.url): LlmClient {
  const toml = `[models]\nprovider = "${provider}"\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nembedding = "nomic-embed-text"\nbase_url = "${baseUrl}"\ncontext_window = 8192\nmax_tokens = 64\n[models.overrides]\nscope = {model = "qwen3:0.6b", max_tokens = 16}\n`;
  return clientFromToml(toml, db, { baseDelayMs: 5, maxDelayMs: 20 });
}

function rows(): Array<Record<string, unknown>> {
  return db.prepare('select * from model_calls order by id').all() as Array<Record<string, unknown>>;
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the call to fail');
}

describe.each(['ollama', 'openai_compat'] as const)('LlmClient over %s', (provider) => {
  it('completes with exact token counts and logs the call once', async () => {
    server.script.chat.push({ text: 'yes', promptTokens: 42, completionTokens: 3 });
    const result = await clientFor(provider).complete('Is it relevant?', { system: 'Answer yes or no.', stage: 'scope', runId: 'run-1' });
    expect(result).toMatchObject({ text: 'yes', promptTokens: 42, completionTokens: 3, model: 'qwen3:0.6b' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    const [row] = rows();
    expect(rows()).toHaveLength(1);
    expect(row).toMatchObject({ run_id: 'run-1', stage: 'scope', role: 'reasoning', provider, model: 'qwen3:0.6b', system: 'Answer yes or no.', prompt: 'Is it relevant?', response: 'yes', prompt_tokens: 42, completion_tokens: 3, error_code: null });
    expect(JSON.parse(String(row?.params_json))).toMatchObject({ max_tokens: 16, num_ctx: 8192, temperature: 0, attempts: 1 });
  });

  it('streams deltas and then the final usage', async () => {
    server.script.chat.push({ chunks: ['The ', 'answer ', 'is 4.'], promptTokens: 9, completionTokens: 3 });
    const stream = clientFor(provider).stream('2+2?', { stage: 'chat' });
    const deltas: string[] = [];
    for await (const d of stream) deltas.push(d);
    expect(deltas).toEqual(['The ', 'answer ', 'is 4.']);
    expect(await stream.final).toMatchObject({ text: 'The answer is 4.', promptTokens: 9, completionTokens: 3 });
    expect(rows()[0]).toMatchObject({ response: 'The answer is 4.', stage: 'chat' });
  });

  it('retries HTTP 500 and 429, then succeeds', async () => {
    server.script.chat.push({ fault: 'http500' }, { fault: 'http429' }, { text: 'ok' });
    const result = await clientFor(provider).complete('hi');
    expect(result.text).toBe('ok');
    expect(JSON.parse(String(rows()[0]?.params_json)).attempts).toBe(3);
  });

  it('gives up after the attempts with a clear message, and logs the failure', async () => {
    server.script.chat.push({ fault: 'http500' }, { fault: 'http500' }, { fault: 'http500' });
    const error = await failure(clientFor(provider).complete('hi'));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toMatch(/failed \(HTTP 500\)/);
    expect(rows()[0]).toMatchObject({ error_code: 'MODEL_ERROR', response: null });
  });

  it('does not retry an unknown model and says how to pull it', async () => {
    const client = clientFor(provider);
    const error = await failure(client.complete('hi', { model: { ...client.resolve({ stage: 'plan' }), model: 'nope:1b' } }));
    expect(error.code).toBe('MODEL_NOT_FOUND');
    expect(error.message).toContain('cra models pull nope:1b');
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('reports a connection reset mid-stream without retrying after text arrived', async () => {
    server.script.chat.push({ chunks: ['partial ', 'reply'], fault: 'reset' }, { text: 'never used' });
    const stream = clientFor(provider).stream('hi');
    const error = await failure(stream.final);
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toMatch(/closed the connection/);
    expect(server.script.chat).toHaveLength(1);
  });

  it('retries a reset before any text and then succeeds', async () => {
    server.script.chat.push({ fault: 'reset' }, { text: 'second try' });
    expect((await clientFor(provider).complete('hi')).text).toBe('second try');
  });

  it('fails clearly on a malformed JSON line in a stream', async () => {
    server.script.chat.push({ chunks: ['a ', 'b'], fault: 'malformed' });
    const error = await failure(clientFor(provider).stream('hi').final);
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toMatch(/malformed/);
  });

  it('fails clearly on a malformed JSON body', async () => {
    server.script.chat.push({ fault: 'malformed' });
    const error = await failure(clientFor(provider).complete('hi'));
    expect(error.message).toMatch(/malformed/);
  });

  it('times out a stalled server', async () => {
    server.script.chat.push({ fault: 'stall' });
    const error = await failure(clientFor(provider).complete('hi', { timeoutMs: 150 }));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toMatch(/did not answer within/);
  });

  it('cancels through the AbortSignal', async () => {
    server.script.chat.push({ fault: 'stall' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(clientFor(provider).complete('hi', { signal: controller.signal }));
    expect(error.code).toBe('CANCELLED');
    expect(rows()[0]).toMatchObject({ error_code: 'CANCELLED' });
  });

  it('embeds a batch in order', async () => {
    const result = await clientFor(provider).embed(['alpha', 'beta', 'alpha']);
    expect(result.vectors).toHaveLength(3);
    expect(result.vectors[0]).toEqual(result.vectors[2]);
    expect(result.vectors[0]).not.toEqual(result.vectors[1]);
    expect(result.promptTokens).toBeGreaterThan(0);
    expect(rows()[0]).toMatchObject({ model: 'nomic-embed-text', role: 'embedding', stage: 'embedding' });
  });
});

describe('LlmClient against nothing', () => {
  it('says the server is unreachable after retrying', async () => {
    const dead = await OllamaTestServer.start();
    const url = dead.url;
    await dead.close();
    const error = await failure(clientFor('ollama', url).complete('hi'));
    expect(error.code).toBe('OLLAMA_UNREACHABLE');
    expect(error.message).toContain(url);
    expect(error.message).toContain('ollama serve');
    expect(JSON.parse(String(rows()[0]?.params_json)).attempts).toBe(3);
  });

  it('sends num_ctx, num_predict and temperature to Ollama on every call', async () => {
    await clientFor('ollama').complete('hi', { stage: 'scope' });
    const chat = server.requests.find((r) => r.path === '/api/chat');
    expect((chat?.body as { options: unknown }).options).toEqual({ num_ctx: 8192, num_predict: 16, temperature: 0 });
  });
});
