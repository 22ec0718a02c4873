import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { packageRoot } from '../../../core/platform/paths';
import { createChatRepo } from '../../../core/testing/chatRepo';
import type { TestRepo } from '../../../core/testing/gitRepo';
import { OllamaTestServer } from '../../../core/testing/ollamaTestServer';
import { runCra, type CraOutput } from './cra';

/** What {@link useCliModelRepo} sets up: valid inside tests and hooks that run after its beforeAll. */
export interface CliModelRepo {
  readonly server: OllamaTestServer;
  readonly repo: TestRepo;
  readonly dataDir: string;
  /** Run `cra --data-dir <dataDir> …args` as a real process; `env` is added to its environment. */
  cra(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<CraOutput>;
}

export interface CliModelRepoOptions {
  /** Prefix of the temporary data folder. */
  prefix: string;
  /** The data folder's config.toml, from the loopback server's URL (default: qwen3:0.6b for reasoning and coding at that URL). */
  config?: (serverUrl: string) => string;
  /** Models the loopback server has besides qwen3:0.6b. */
  models?: string[];
  /** Changes to the repository before it is indexed (pipeline files, …). */
  prepare?: (repo: TestRepo) => void;
}

/** The config.toml most CLI tests use: one small model for reasoning and coding, at the loopback server. */
export function loopbackConfig(serverUrl: string): string {
  return `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${serverUrl}"\n`;
}

/**
 * Test support for CLI commands that call models: registers the hooks that start the loopback
 * model server, create the chat repository, write a data folder with its config and index the
 * repository with the real `cra index` (once per file), and tear all of it down after.
 */
export function useCliModelRepo(options: CliModelRepoOptions): CliModelRepo {
  let state: { server: OllamaTestServer; repo: TestRepo; dataDir: string } | undefined;
  const get = () => {
    if (!state) throw new Error('useCliModelRepo: its fields are set in beforeAll; read them inside tests or later hooks.');
    return state;
  };
  beforeAll(async () => {
    const server = await OllamaTestServer.start();
    for (const model of ['qwen3:0.6b', ...(options.models ?? [])]) server.install(model);
    const repo = createChatRepo();
    options.prepare?.(repo);
    const dataDir = mkdtempSync(join(tmpdir(), options.prefix));
    state = { server, repo, dataDir };
    writeFileSync(join(dataDir, 'config.toml'), (options.config ?? loopbackConfig)(server.url));
    const index = spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, 'index', repo.root, '--json'], { encoding: 'utf8', timeout: 120_000 });
    expect(index.status, index.stderr).toBe(0);
  }, 180_000);
  afterAll(async () => {
    if (!state) return;
    await state.server.close();
    state.repo.cleanup();
    rmSync(state.dataDir, { recursive: true, force: true });
  });
  return {
    get server() {
      return get().server;
    },
    get repo() {
      return get().repo;
    },
    get dataDir() {
      return get().dataDir;
    },
    cra: (args, env = {}) => runCra(get().dataDir, args, env),
  };
}
