import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelPullProgress } from '../../../shared/contract';
import { STAGES } from '../../platform/config/schema';
import { MODEL_STAGES } from '../../../shared/contract';
import type { Core } from '../createCore';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { createTempCore } from '../../testing/tempCore';

let server: OllamaTestServer;
let env: ReturnType<typeof createTempCore>;
let core: Core;

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  server.offer('qwen3:4b', [300_000, 200_000], { parameterSize: '4B' });
  server.script.pull = { chunkBytes: 50_000, delayMs: 40 };
  env = createTempCore();
  core = env.core;
  await core.handlers['config/init']({});
  await core.handlers['config/set']({ edits: [{ path: ['models', 'base_url'], value: server.url }] });
});
afterAll(async () => {
  await env.cleanup();
  await server.close();
});

describe('the models, logs and config domains over the test server', () => {
  it('keeps the contract stage list and the config stage list equal', () => {
    expect([...MODEL_STAGES]).toEqual([...STAGES]);
  });

  it('reports the server running and lists installed models with details', async () => {
    expect(await core.handlers['models/status']({})).toMatchObject({ state: 'running', version: '0.9.0-test', address: server.url });
    const { models } = await core.handlers['models/list']({});
    expect(models).toEqual([expect.objectContaining({ name: 'qwen3:0.6b', family: 'qwen3', parameters: '600M', quantization: 'Q4_K_M', contextLength: 40960, loaded: false })]);
  });

  it('pulls a model as a run with summed progress events', async () => {
    const events: ModelPullProgress[] = [];
    const off = core.events.on('models/pullProgress', (p) => events.push(p));
    const { runId } = await core.handlers['models/pull']({ name: 'qwen3:4b' });
    await core.runs.wait(runId);
    off();
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.map((e) => e.doneBytes)).toEqual([...events.map((e) => e.doneBytes)].sort((a, b) => a - b));
    expect(events[events.length - 1]).toMatchObject({ runId, model: 'qwen3:4b', doneBytes: 500_000, totalBytes: 500_000, percent: 100 });
    expect((await core.handlers['models/list']({})).models.map((m) => m.name)).toContain('qwen3:4b');
  });

  it('assigns a model to a stage and writes it to config.toml with the comments kept', async () => {
    const result = await core.handlers['models/assign']({ stage: 'scope', model: 'qwen3:0.6b', contextWindow: 8192, maxTokens: 16 });
    expect(result.rows.find((r) => r.stage === 'scope')).toMatchObject({ model: 'qwen3:0.6b', contextWindow: 8192, maxTokens: 16, source: 'override' });
    const text = readFileSync(result.configPath, 'utf8');
    expect(text).toContain('\nscope = {model = "qwen3:0.6b", context_window = 8192, max_tokens = 16}\n');
    expect(text).toContain('# Binary decision stages — route to smallest capable model');
    const cleared = await core.handlers['models/assign']({ stage: 'scope', model: null });
    expect(cleared.rows.find((r) => r.stage === 'scope')).toMatchObject({ source: 'role', model: 'qwen3:4b' });
  });

  it('runs "Test model" as a real completion that the Logs list and show whole', async () => {
    server.script.chat.push({ text: 'Hello there, friend!', promptTokens: 12, completionTokens: 5 });
    const result = await core.handlers['models/test']({ model: 'qwen3:0.6b', prompt: 'Say hello.' });
    expect(result).toMatchObject({ text: 'Hello there, friend!', promptTokens: 12, completionTokens: 5 });
    const list = await core.handlers['logs/list']({ errorsOnly: false, limit: 50, offset: 0, model: 'qwen3:0.6b' });
    expect(list.total).toBe(1);
    expect(list.calls[0]).toMatchObject({ stage: 'test', promptTokens: 12, completionTokens: 5, preview: 'Hello there, friend!' });
    const call = await core.handlers['logs/get']({ id: list.calls[0]?.id as number });
    expect(call).toMatchObject({ prompt: 'Say hello.', response: 'Hello there, friend!', params: expect.objectContaining({ num_ctx: expect.any(Number) }) });
  });

  it('logs a failed call and filters errors only', async () => {
    await expect(core.handlers['models/test']({ model: 'missing:1b', prompt: 'hi' })).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
    const errors = await core.handlers['logs/list']({ errorsOnly: true, limit: 50, offset: 0 });
    expect(errors.calls).toEqual([expect.objectContaining({ model: 'missing:1b', errorCode: 'MODEL_NOT_FOUND' })]);
  });

  it('deletes a model', async () => {
    await core.handlers['models/delete']({ name: 'qwen3:4b' });
    await expect(core.handlers['models/delete']({ name: 'qwen3:4b' })).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
  });

  it('rejects an invalid setting naming the key, and leaves the file alone', async () => {
    const before = readFileSync((await core.handlers['config/get']({})).path, 'utf8');
    await expect(core.handlers['config/set']({ edits: [{ path: ['orchestrator', 'max_parts'], value: 0 }] })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('[orchestrator].max_parts = 0') });
    expect(readFileSync((await core.handlers['config/get']({})).path, 'utf8')).toBe(before);
  });
});

describe('without a model server', () => {
  it('explains what to do in one line', async () => {
    const dead = await OllamaTestServer.start();
    const url = dead.url;
    await dead.close();
    const bare = createTempCore();
    try {
      await bare.core.handlers['config/init']({});
      await bare.core.handlers['config/set']({ edits: [{ path: ['models', 'base_url'], value: url }] });
      const error = (await bare.core.handlers['models/list']({}).catch((e: unknown) => e)) as { code: string; message: string };
      // A configured address that does not answer is not "Ollama is not installed" (issue 10, item 7).
      expect(error.code).toBe('OLLAMA_UNREACHABLE');
      expect(error.message.split('\n')).toHaveLength(1);
      expect(error.message).toContain(`No model server answers at ${url}`);
    } finally {
      await bare.cleanup();
    }
  });
});
