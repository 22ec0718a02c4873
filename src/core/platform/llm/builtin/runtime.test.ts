import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/contract';
import type { ResolvedModel } from '../router';
import { REAL_GGUF_NAME, realGgufRuntime } from '../../../testing/realGguf';
import type { StatusResult } from './hostProtocol';

const model: ResolvedModel = { model: REAL_GGUF_NAME, baseUrl: 'builtin', provider: 'builtin', temperature: 0, maxTokens: 64, contextWindow: 512, timeoutMs: 60_000, role: 'reasoning', source: 'role' };
let env: Awaited<ReturnType<typeof realGgufRuntime>> | undefined;
afterEach(async () => {
  await env?.dispose();
  env = undefined;
});

const call = (signal = new AbortController().signal, onDelta?: (d: string) => void) => ({ model, prompt: 'Once upon a time', temperature: 0, maxTokens: 200, signal, ...(onDelta ? { onDelta } : {}) });

describe('built-in runtime host process', () => {
  it('a host killed with SIGKILL mid-stream fails that call with a clear MODEL_ERROR; the engine lives and the next call starts a fresh host', async () => {
    env = await realGgufRuntime();
    const { runtime, provider } = env;
    let killed: number | undefined;
    const error = await provider
      .complete(
        call(undefined, () => {
          if (killed === undefined) process.kill((killed = runtime.pid as number), 'SIGKILL');
        }),
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('MODEL_ERROR');
    expect((error as AppError).message).toMatch(/built-in model runtime stopped \(killed by SIGKILL\) while running 'stories260k'/);
    const again = await provider.complete({ ...call(), maxTokens: 4 });
    expect(again.completionTokens).toBeGreaterThan(0);
    expect(runtime.pid).not.toBe(killed);
  });

  it('unloads a model after the idle timeout and loads it again on the next call', async () => {
    env = await realGgufRuntime({ idleMs: 300 });
    const { runtime, provider, store } = env;
    const path = store.resolvePath(REAL_GGUF_NAME);
    expect(await provider.countTokens(model, 'Once upon a time', new AbortController().signal)).toBe(4);
    const loaded = await runtime.request<StatusResult>({ type: 'status' }, 'status');
    expect(loaded.loaded).toEqual([path]);
    let status = loaded;
    for (let i = 0; i < 100 && status.loaded.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = await runtime.request<StatusResult>({ type: 'status' }, 'status');
    }
    expect(status.loaded).toEqual([]);
    expect(await provider.countTokens(model, 'Once upon a time', new AbortController().signal)).toBe(4);
  });

  it('a model name the store does not know is MODEL_NOT_FOUND naming the fix, and starts no host', async () => {
    env = await realGgufRuntime();
    await expect(env.provider.complete({ ...call(), model: { ...model, model: 'qwen3-4b' } })).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND', message: expect.stringMatching(/not among the built-in runtime's models/) });
    expect(env.runtime.pid).toBeUndefined();
  });
});

describe('node-llama-cpp stays out of start-up', () => {
  it('is imported at run time only by the host process (llamaModels.ts, dynamically); elsewhere only as types', () => {
    const root = join(__dirname, '..', '..', '..', '..');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) {
          const text = readFileSync(p, 'utf8');
          if (/^import (?!type )[^;]*from 'node-llama-cpp'/m.test(text) || (/import\('node-llama-cpp'\)/.test(text) && !p.endsWith('llamaModels.ts'))) offenders.push(p);
        }
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
