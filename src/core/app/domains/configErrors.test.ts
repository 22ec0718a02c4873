import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MODEL_NAME_RULE, modelsRequests } from '../../../shared/contract';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { createTempCore } from '../../testing/tempCore';

let env: ReturnType<typeof createTempCore>;
let file: string;
beforeEach(async () => {
  env = createTempCore();
  file = (await env.core.handlers['config/get']({})).path;
});
afterEach(() => env.cleanup());

describe('a config that does not load is reported, never silently replaced by defaults', () => {
  it('a TOML syntax error: models/list, the server status and Settings name the file and line; nothing claims Ollama is missing', async () => {
    writeFileSync(file, '# mine\n[models\ncoding = "qwen3:4b"\n');
    const error = await env.core.handlers['models/list']({}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining(`${file}:2:`) });
    expect((error as Error).message).toContain('`[models`');
    const status = await env.core.handlers['models/status']({});
    expect(status).toMatchObject({ state: 'config_invalid', reachable: false, hint: expect.stringContaining(`${file}:2:`) });
    const snapshot = await env.core.handlers['config/get']({});
    expect(snapshot).toMatchObject({ exists: true, values: null, error: { code: 'CONFIG_INVALID', message: expect.stringContaining(`${file}:2:`) } });
  });

  it('refuses to write into a file that does not parse, saying why, and leaves it byte for byte', async () => {
    const text = '[models\ncoding = "qwen3:4b"\n';
    writeFileSync(file, text);
    const set = env.core.handlers['config/set']({ edits: [{ path: ['orchestrator', 'max_parts'], value: 7 }] });
    await expect(set).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringMatching(/^Nothing was saved: .* does not parse.*config\.toml:1:8: not valid TOML/) });
    const assign = env.core.handlers['models/assign']({ stage: 'scope', model: 'qwen3:0.6b' });
    await expect(assign).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('Nothing was saved') });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('a value of the wrong type names file:line, the key, the value and what is allowed', async () => {
    writeFileSync(file, '[retrieval]\nmode = "auto"\ntop_k = "twenty"\n');
    const snapshot = await env.core.handlers['config/get']({});
    expect(snapshot.error?.message).toBe(`${file}:3: [retrieval].top_k = "twenty" is not allowed: must be a whole number from 1 to 200. Fix it in the file or on the Settings page.`);
    // Fixing the bad key through config/set works (the file parses); it is what the Settings form does.
    await env.core.handlers['config/set']({ edits: [{ path: ['retrieval', 'top_k'], value: 25 }] });
    expect((await env.core.handlers['config/get']({})).values).toMatchObject({ retrieval: { top_k: 25 } });
  });
});

describe('one rule for model names and server addresses (config/set and models/assign)', () => {
  it('config/set refuses a role model with a quote and a newline, as models/assign does', async () => {
    await env.core.handlers['config/init']({});
    const before = readFileSync(file, 'utf8');
    const bad = 'qwen3"\nx = 1';
    await expect(env.core.handlers['config/set']({ edits: [{ path: ['models', 'coding'], value: bad }] })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining(MODEL_NAME_RULE) });
    const assign = modelsRequests['models/assign'].input.safeParse({ role: 'coding', model: bad });
    expect(assign.success).toBe(false);
    expect(assign.error?.issues[0]?.message).toContain(MODEL_NAME_RULE);
    await expect(env.core.handlers['config/set']({ edits: [{ path: ['models', 'overrides', 'scope'], value: 'a b' }] })).rejects.toMatchObject({ message: expect.stringContaining(MODEL_NAME_RULE) });
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('config/set refuses a base_url with quotes or a newline (a URL parser would drop the newline silently)', async () => {
    await env.core.handlers['config/init']({});
    for (const value of ['http://127.0.0.1:11434\n', 'http://a"b:1', 'http://x y']) {
      await expect(env.core.handlers['config/set']({ edits: [{ path: ['models', 'base_url'], value }] })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('[models].base_url') });
    }
    await env.core.handlers['config/set']({ edits: [{ path: ['models', 'base_url'], value: 'http://127.0.0.1:9' }] });
    expect((await env.core.handlers['config/get']({})).values).toMatchObject({ models: { base_url: 'http://127.0.0.1:9' } });
  });
});

describe('a configured address that does not answer', () => {
  it('says no model server answers at that address, not that Ollama is not installed', async () => {
    const dead = await OllamaTestServer.start();
    const url = dead.url;
    await dead.close();
    await env.core.handlers['config/init']({});
    await env.core.handlers['config/set']({ edits: [{ path: ['models', 'base_url'], value: url }] });
    const status = await env.core.handlers['models/status']({});
    expect(status).toMatchObject({ state: 'unreachable', address: url, hint: `No model server answers at ${url} (set by [models].base_url) — start Ollama there, or fix [models].base_url / OLLAMA_HOST, then retry.` });
    await expect(env.core.handlers['models/list']({})).rejects.toMatchObject({ code: 'OLLAMA_UNREACHABLE', message: expect.stringContaining(`No model server answers at ${url}`) });
  });
});
