import { resolve } from 'node:path';
import type { Command } from 'commander';
import type * as Engine from '../../core/app/createCore';
import type { Core, CoreOptions } from '../../core/app/createCore';
import type * as Client from '../../core/app/contract/client';
import type * as Remote from './remote';
import type { EngineClient } from '../../core/app/contract/client';
import { resolveDataDir } from '../../core/platform/paths';
import type { ErrorCode, RepoInfo } from '../../shared/contract';
import { AppError, serializeError } from '../../shared/contract/errors';
import { printable } from '../../shared/printable';

/**
 * How a command uses the engine. `read` (search, embed, logs, models, …) owns no repository state:
 * no watchers, and no "indexing" status of another process is reset. `index` records its own runs
 * and recovers runs whose process is gone. `serve` is an app host: watchers, recovery, model server.
 */
export type CoreAccess = 'read' | 'index' | 'serve';

/** What every command gets: the resolved data folder and a lazily created engine. */
export interface CliContext {
  dataDir(): string;
  /**
   * The engine as every command uses it: a contract client (requests validated by the contract,
   * events, runs), over an engine in this process created on first use (see {@link CoreAccess}).
   */
  client(access?: CoreAccess): EngineClient;
  /** The engine itself, for the hosts that bind it to a transport (`cra serve`, `cra mcp`); `'cli'` is the old name of `'read'`. */
  core(access?: CoreAccess | 'cli'): Core;
  /**
   * Load the engine's code: the root program's preAction hook calls it before any command runs,
   * so `cra --version` and `cra --help` never load it. `command` (the command about to run) picks
   * the bundle's code cache of engine.js, one per command (src/core/platform/runtime/codeCache.js), and first
   * runs what the command asked to start before the engine loads ({@link beforeLoad}).
   */
  load(command?: Command): Promise<void>;
  /**
   * Have `start` called with `command` (its arguments and options parsed) just before the engine
   * loads: work on another thread overlaps the engine's load (`cra chat` detects the question's language).
   */
  beforeLoad(command: Command, start: (command: Command) => void): void;
  /** Whether progress may redraw one line (a terminal) or must print plain lines (pipes, CI). */
  isTty: boolean;
}

/** The engine options of each access. */
const ACCESS: Record<CoreAccess, { host: 'cli' | 'serve'; options: CoreOptions }> = {
  read: { host: 'cli', options: { watch: false, recoverStatuses: false } },
  index: { host: 'cli', options: { watch: false, recoverStatuses: true } },
  serve: { host: 'serve', options: {} },
};

/** Build the context from the global options of the root program. */
export function createCliContext(program: Command): CliContext {
  let core: Core | undefined;
  let engine: typeof Engine | undefined;
  let client: typeof Client | undefined;
  let remote: typeof Remote | undefined;
  let connected: EngineClient | undefined;
  const early = new Map<Command, (command: Command) => void>();
  const globals = () => program.opts<{ dataDir?: string; remote?: string; token?: string }>();
  const dataDir = () => resolveDataDir(globals().dataDir);
  const coreOf = (access: CoreAccess | 'cli' = 'read'): Core => {
    if (!engine) throw new Error('The engine is used before it was loaded (ctx.load runs before every command).');
    if (globals().remote !== undefined) throw new AppError('VALIDATION', `This command runs on this machine's engine only; run it without --remote (search, chat, retrieve, index, logs and the other contract commands take it).`);
    const { host, options } = ACCESS[access === 'cli' ? 'read' : access];
    return (core ??= engine.createCore({ host, dataDir: dataDir() }, options));
  };
  return {
    dataDir,
    core: coreOf,
    client: (access = 'read') => {
      const { remote: url, token } = globals();
      if (url === undefined) return (connected ??= client!.localClient(coreOf(access)));
      return (connected ??= remote!.remoteClient(remote!.parseRemote(url, token)));
    },
    beforeLoad: (command, start) => void early.set(command, start),
    async load(command) {
      if (command !== undefined) {
        early.get(command)?.(command);
        // Read by the code-cache loader of the bundle (codeCache.js) when engine.js loads below.
        (globalThis as Record<symbol, unknown>)[Symbol.for('clean-room.cli.command')] = command.name();
      }
      // require(), not import(): from the sources tsx hooks require only, and in the bundle a
      // require of our code is a lazy initialiser, so nothing of the engine runs before this.
      /* eslint-disable @typescript-eslint/no-require-imports -- the composition entry points, loaded on action */
      engine ??= require('../../core/app/createCore') as typeof Engine;
      client ??= require('../../core/app/contract/client') as typeof Client;
      if (globals().remote !== undefined) remote ??= require('./remote') as typeof Remote;
      /* eslint-enable @typescript-eslint/no-require-imports */
    },
    isTty: Boolean(process.stderr.isTTY),
  };
}

/**
 * The engine and the indexed repository `--repo PATH` names (the folder or the nearest registered
 * one above it: `repos/resolve`, NOT_FOUND / NOT_INDEXED saying what to do). With `config`, a
 * config file that does not load fails first, naming file:line and key (the app falls back to
 * defaults instead). The engine is let go when either fails.
 */
export async function openRepo(ctx: CliContext, path: string, options: { config?: boolean } = {}): Promise<{ engine: EngineClient; repo: RepoInfo }> {
  const engine = ctx.client();
  try {
    if (options.config) await requireLoadableConfig(engine);
    return { engine, repo: await engine.request('repos/resolve', { path: resolve(path) }) };
  } catch (error) {
    await engine.dispose();
    throw error;
  }
}

/** Throw the config's load failure (`config/get` reports it), if any; no config file is no failure. */
export async function requireLoadableConfig(engine: EngineClient): Promise<void> {
  const { error } = await engine.request('config/get', {});
  if (error && error.code !== 'CONFIG_MISSING') throw new AppError(error.code as ErrorCode, error.message);
}

/** One command of the CLI, registered on the root program. */
export type CommandModule = (program: Command, ctx: CliContext) => void;

/** Print an error as one line a person can act on, and set the exit code. */
export function reportError(error: unknown): void {
  const wire = serializeError(error);
  const prefix = error instanceof AppError ? 'error' : 'internal error';
  process.stderr.write(`cra: ${prefix}: ${printable(wire.message, { multiline: true })}\n`);
  if (wire.code === 'INTERNAL' && error instanceof Error && process.env.CRA_DEBUG) process.stderr.write(`${error.stack}\n`);
  process.exitCode = wire.code === 'CANCELLED' ? 130 : 1;
}
