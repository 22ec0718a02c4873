import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryNeeded, withAlongside, recommendedModels } from '../../platform/llm/recommended';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { createTempCore } from '../../testing/tempCore';

let server: OllamaTestServer;
let env: ReturnType<typeof createTempCore>;

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  env = createTempCore();
  await env.core.handlers['config/init']({});
  await env.core.handlers['config/set']({ edits: [{ path: ['models', 'base_url'], value: server.url }] });
});
afterAll(async () => {
  await env.cleanup();
  await server.close();
});

describe('the Models page requests', () => {
  it('assigns several stages in one write and keeps the comments', async () => {
    const result = await env.core.handlers['models/assignStages']({
      changes: [
        { stage: 'scope', model: 'qwen3:0.6b', maxTokens: 16 },
        { stage: 'precision', model: 'qwen3:0.6b' },
      ],
    });
    expect(result.rows.find((r) => r.stage === 'scope')).toMatchObject({ model: 'qwen3:0.6b', maxTokens: 16, source: 'override' });
    expect(result.rows.find((r) => r.stage === 'precision')).toMatchObject({ model: 'qwen3:0.6b', source: 'override' });
    const text = readFileSync(result.configPath, 'utf8');
    expect(text).toContain('\nscope = {model = "qwen3:0.6b", max_tokens = 16}\n');
    expect(text).toContain('\nprecision = "qwen3:0.6b"\n');
    expect(text).toContain('# Binary decision stages — route to smallest capable model');
    const cleared = await env.core.handlers['models/assignStages']({ changes: [{ stage: 'precision', model: null }] });
    expect(cleared.rows.find((r) => r.stage === 'precision')).toMatchObject({ source: 'role' });
  });

  it('says how much memory is free and whether each model fits beside the models assigned to other stages', async () => {
    const { totalMemoryBytes, freeMemoryBytes, models } = await env.core.handlers['models/recommended']({});
    expect(freeMemoryBytes).toBeGreaterThan(0);
    expect(freeMemoryBytes).toBeLessThanOrEqual(totalMemoryBytes);
    const coder = models.find((m) => m.name === 'qwen2.5-coder:3b');
    // The template assigns qwen2.5-coder:3b (execute), qwen3:4b (reasoning), nomic-embed-text and, above, qwen3:0.6b (scope).
    expect(coder?.alongside?.models.sort()).toEqual(['nomic-embed-text', 'qwen3:0.6b', 'qwen3:4b']);
    expect(coder?.alongside?.memoryBytes).toBeGreaterThan(coder?.memoryBytes ?? Infinity);
  });
});

describe('withAlongside', () => {
  it('adds the other assigned models (each once, not the model itself) and rates the sum', () => {
    const gb = 1_000_000_000;
    const [judge, reasoning] = recommendedModels(new Set(), 16 * gb).filter((m) => m.name === 'qwen3:0.6b' || m.name === 'qwen3:4b');
    const assigned = [{ name: 'qwen3:4b', sizeBytes: 2.5 * gb }, { name: 'qwen3:4b', sizeBytes: 2.5 * gb }, { name: 'big:70b', sizeBytes: 9 * gb }, { name: 'mystery' }];
    const [j, r] = withAlongside([judge!, reasoning!], assigned, 16 * gb, 4 * gb);
    expect(j?.alongside).toEqual({ models: ['qwen3:4b', 'big:70b', 'mystery'], memoryBytes: judge!.memoryBytes + memoryNeeded(2.5 * gb) + memoryNeeded(9 * gb), fit: 'too_large' });
    expect(j?.fit).toBe('fits');
    expect(j?.fitsFreeNow).toBe(true);
    expect(r?.alongside?.models).toEqual(['big:70b', 'mystery']);
    expect(r?.fitsFreeNow).toBe(true);
    expect(withAlongside([reasoning!], [], 16 * gb, 1 * gb)[0]).toMatchObject({ fitsFreeNow: false, alongside: { models: [], fit: 'fits' } });
  });
});
