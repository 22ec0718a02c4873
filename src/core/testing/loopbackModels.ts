/**
 * Test support for model calls over the loopback test server: config TOML naming it, a
 * ModelRouter and an LlmClient read from TOML as config.toml is, and the per-file server set-up
 * of the client and small-model tests.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { parseToml, validateConfig, type LoadedConfig } from '../platform/config/load';
import type { Db } from '../platform/db/open';
import { openRawDatabase } from '../platform/db/raw';
import { LlmClient, type RetryPolicy } from '../platform/llm/client';
import { ModelRouter } from '../platform/llm/router';
import { RawCallLog } from '../platform/logs/callLog';
import { OllamaTestServer } from './ollamaTestServer';
import type { TestModel } from './testServerTypes';

/** The chat model the loopback tests use for every role but embedding. */
export const LOOPBACK_CHAT_MODEL = 'qwen3:0.6b';
/** The embedding model the loopback tests install when they need vectors. */
export const LOOPBACK_EMBEDDING_MODEL = 'nomic-embed-text';

/** `[models]` with reasoning and coding on `model` (and embedding on `embedding`, when given) at `baseUrl`. */
export function loopbackToml(baseUrl: string, options: { model?: string; embedding?: string } = {}): string {
  const model = options.model ?? LOOPBACK_CHAT_MODEL;
  const embedding = options.embedding ? `embedding = "${options.embedding}"\n` : '';
  return `[models]\nreasoning = "${model}"\ncoding = "${model}"\n${embedding}base_url = "${baseUrl}"\n`;
}

/** A router over config TOML, validated as config.toml is; `file` is the name its messages give the config. */
export function routerFromToml(toml: string, options: { env?: NodeJS.ProcessEnv; file?: string } = {}): ModelRouter {
  const file = options.file ?? 't';
  const loaded: LoadedConfig = { values: validateConfig(parseToml(toml, 't'), 't'), files: [file], primaryFile: file };
  return new ModelRouter(loaded, options.env);
}

/** A client over config TOML that logs every call to `log` (one attempt per call unless `retry` says otherwise). */
export function clientFromToml(toml: string, log: Db, retry: Partial<RetryPolicy> = { attempts: 1 }): LlmClient {
  const router = routerFromToml(toml);
  return new LlmClient({ router: () => router, log: new RawCallLog(log), retry });
}

/** Forget what the previous test scripted and saw: scripted replies, the reply function, the requests. */
export function resetScript(server: OllamaTestServer): void {
  server.script.chat = [];
  server.script.respond = undefined;
  server.requests.length = 0;
}

/** What `useLoopbackModels` fills in: `server` in beforeAll, `db` (a fresh in-memory call log) before each test. */
export interface LoopbackModels {
  readonly server: OllamaTestServer;
  readonly db: Db;
}

/**
 * Start the loopback server once for the file; before each test empty its script and requests,
 * (re)install `models` (name → details) and open a fresh in-memory call log. The fields are set
 * by these hooks: read them inside tests and hooks only.
 */
export function useLoopbackModels(models: Record<string, Partial<TestModel>>): LoopbackModels {
  const state = {} as { server: OllamaTestServer; db: Db };
  beforeAll(async () => {
    state.server = await OllamaTestServer.start();
  });
  afterAll(async () => {
    await state.server?.close();
  });
  beforeEach(() => {
    resetScript(state.server);
    for (const [name, details] of Object.entries(models)) state.server.install(name, details);
    state.db = openRawDatabase(':memory:');
  });
  return state;
}
