import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SetupModel } from '../../../shared/contract';
import type { Core } from '../../app/createCore';
import { startGgufServer, type GgufServer } from '../../testing/ggufServer';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { REAL_GGUF_BYTES, REAL_GGUF_SHA256, realGgufPath } from '../../testing/realGguf';
import { createTempCore } from '../../testing/tempCore';
import { BUILTIN_CATALOG, catalogUrl } from './builtin/catalog';
import { chooseModels } from './setup';

const GB = 1_000_000_000;
const saved = { ...process.env };
let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
  process.env = { ...saved };
});

/** An engine that finds no Ollama (nothing on PATH, a closed port) and the catalog under `mirror`. */
function engineWithoutOllama(mirror: string): { core: Core; dataDir: string } {
  process.env.HF_ENDPOINT = mirror;
  process.env.OLLAMA_HOST = 'http://127.0.0.1:9';
  process.env.PATH = '/nonexistent';
  process.env.CRA_LLAMA_THREADS = '1';
  const temp = createTempCore();
  cleanups.push(temp.cleanup);
  return temp;
}

const model = (name: string, capability: SetupModel['capability'], stages: string[], memoryBytes: number): SetupModel => ({ name, capability, stages, memoryBytes, installed: false });

describe('one-step model setup', () => {
  it('reads catalog addresses under $HF_ENDPOINT (a mirror), and leaves them alone without it', () => {
    const url = BUILTIN_CATALOG[0]!.url;
    expect(catalogUrl(url, {})).toBe(url);
    expect(catalogUrl(url, { HF_ENDPOINT: 'http://127.0.0.1:8080/' })).toBe(`http://127.0.0.1:8080${url.slice('https://huggingface.co'.length)}`);
  });

  it('gives the largest generation model’s stages to the next smaller one until all fit together; the embedding model stays', () => {
    const candidates = [model('big', 'generate', ['plan', 'chat'], 6 * GB), model('mid', 'generate', ['precision'], 3 * GB), model('small', 'generate', ['scope'], 1 * GB), model('embed', 'embed', ['embedding'], 0.5 * GB)];
    const notes: string[] = [];
    // 16 GB: 10.5 GB together is tight, not too large: nothing moves.
    expect(chooseModels(candidates, 16 * GB, notes).map((m) => [m.name, m.stages])).toEqual([['small', ['scope']], ['mid', ['precision']], ['big', ['plan', 'chat']], ['embed', ['embedding']]]);
    // 8 GB: 10.5 GB is too large; big → mid gives 4.5 GB (tight): fits.
    const small = chooseModels(candidates, 8 * GB, notes);
    expect(small.map((m) => [m.name, m.stages])).toEqual([['small', ['scope']], ['mid', ['precision', 'plan', 'chat']], ['embed', ['embedding']]]);
    expect(notes).toEqual(['big does not fit beside the others in this machine\'s memory: plan, chat use mid instead.']);
  });

  it('without Ollama: proposes the built-in models sized from their GGUF headers, downloads them all, assigns every stage, and a chat answer streams from one', async () => {
    const data = readFileSync(realGgufPath());
    const server: GgufServer = await startGgufServer(data);
    cleanups.push(() => server.close());
    const { core, dataDir } = engineWithoutOllama(server.url.replace(/\/model\.gguf$/, ''));

    const plan = await core.handlers['models/setupPlan']({});
    expect(plan.provider).toBe('builtin');
    expect(plan.ollama.state).toBe('unreachable');
    expect(plan.builtin.available).toBe(true);
    expect(plan.missingStages).toHaveLength(12);
    expect(plan.models.map((m) => m.name).sort()).toEqual(BUILTIN_CATALOG.map((c) => c.name).sort());
    expect(plan.models.every((m) => m.sizeBytes === REAL_GGUF_BYTES && m.installed === false && m.contextWindow === 2048)).toBe(true);
    expect(plan.downloadBytes).toBe(5 * REAL_GGUF_BYTES);
    expect(plan.models.flatMap((m) => m.stages).sort()).toEqual([...plan.missingStages].sort());

    const { runId } = await core.handlers['models/setup']({});
    const result = (await core.runs.wait(runId)) as { downloaded: string[]; provider: string };
    expect(result.provider).toBe('builtin');
    expect(result.downloaded).toHaveLength(5);
    const config = readFileSync(join(dataDir, 'config.toml'), 'utf8');
    expect(config).toMatch(/\nprovider = "builtin"\n/);
    expect(config).toContain('chat = {model = "qwen3-4b-q4_k_m", context_window = 2048}');
    expect(config).toContain('embedding = {model = "nomic-embed-text-v1.5-q4_k_m", context_window = 2048}');
    const installed = (await core.handlers['models/list']({})).models;
    expect(installed.map((m) => [m.name, m.sizeBytes])).toContainEqual(['qwen3-4b-q4_k_m', REAL_GGUF_BYTES]);
    expect(installed.find((m) => m.name === 'nomic-embed-text-v1.5-q4_k_m')?.capability).toBe('embed');
    const after = await core.handlers['models/setupPlan']({});
    expect(after.missingStages).toEqual([]);
    expect(after.models.every((m) => m.installed)).toBe(true);
    const { createHash } = await import('node:crypto');
    const file = join(dataDir, 'models', 'gguf', 'Qwen3-4B-Q4_K_M.gguf');
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(REAL_GGUF_SHA256);

    // The assigned chat model answers: streamed by the built-in runtime from the downloaded file.
    const test = await core.handlers['models/test']({ model: 'qwen3-4b-q4_k_m', prompt: 'Once upon a time' });
    expect(test.completionTokens).toBeGreaterThan(0);

    // Deleting a downloaded built-in model removes its file, and its stages lack a model again.
    await core.handlers['models/delete']({ name: 'qwen3-4b-q4_k_m' });
    expect(existsSync(file)).toBe(false);
    expect((await core.handlers['models/setupPlan']({})).missingStages.sort()).toEqual(['chat', 'plan']);
  }, 120_000);

  it('with Ollama running: proposes the recommended tags, pulls the missing ones there and assigns them', async () => {
    const server = await OllamaTestServer.start();
    cleanups.push(() => server.close());
    server.install('qwen3:0.6b');
    server.offer('qwen3:1.7b', [30_000]);
    server.offer('qwen3:4b', [40_000]);
    server.offer('qwen2.5-coder:3b', [20_000]);
    server.offer('nomic-embed-text', [10_000]);
    process.env.OLLAMA_HOST = server.url;
    const temp = createTempCore();
    cleanups.push(temp.cleanup);
    const plan = await temp.core.handlers['models/setupPlan']({});
    expect(plan.provider).toBe('ollama');
    expect(plan.models.find((m) => m.name === 'qwen3:0.6b')).toMatchObject({ installed: true, stages: ['scope', 'precision', 'similarity'] });
    const { runId } = await temp.core.handlers['models/setup']({});
    const result = (await temp.core.runs.wait(runId)) as { downloaded: string[] };
    expect(result.downloaded.sort()).toEqual(plan.models.filter((m) => !m.installed).map((m) => m.name).sort());
    const config = readFileSync(join(temp.dataDir, 'config.toml'), 'utf8');
    expect(config).toMatch(/\nprovider = "ollama"\n/);
    expect(config).toContain('\nscope = "qwen3:0.6b"\n');
    expect((await temp.core.handlers['models/setupPlan']({})).missingStages).toEqual([]);
  }, 60_000);
});
