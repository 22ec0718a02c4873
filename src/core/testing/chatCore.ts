import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Core } from '../createCore';
import { createChatRepo } from './chatRepo';
import type { TestRepo } from './gitRepo';
import { OllamaTestServer } from './ollamaTestServer';
import { createTempCore } from './tempCore';

/** An engine with the chat fixture repository added and indexed, and the loopback model server its config names. */
export interface IndexedChatCore {
  core: Core;
  dataDir: string;
  /** Set in beforeAll. */
  server: OllamaTestServer;
  repo: TestRepo;
  repoId: string;
}

/**
 * Test support: registers the beforeAll / afterAll of one test file — a temporary engine, the
 * loopback server with qwen3:0.6b as reasoning and coding model (`config` is appended to
 * config.toml), the chat fixture repository (`prepare` may add commits before it is indexed).
 */
export function useIndexedChatCore(options: { config?: string; prepare?: (repo: TestRepo) => void } = {}): IndexedChatCore {
  const temp = createTempCore();
  const fx = { core: temp.core, dataDir: temp.dataDir } as IndexedChatCore;
  beforeAll(async () => {
    fx.server = await OllamaTestServer.start();
    fx.server.install('qwen3:0.6b');
    writeFileSync(join(temp.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${fx.server.url}"\n${options.config ?? ''}`);
    fx.repo = createChatRepo();
    options.prepare?.(fx.repo);
    const added = await temp.core.handlers['repos/add']({ path: fx.repo.root });
    await temp.core.runs.wait(added.runId);
    fx.repoId = added.repo.id;
  }, 60_000);
  afterAll(async () => {
    await fx.server?.close();
    fx.repo?.cleanup();
    await temp.cleanup();
  });
  return fx;
}
