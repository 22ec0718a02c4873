import type { Command } from 'commander';
import { createCore, type Core } from '../../core/createCore';
import { resolveDataDir } from '../../core/paths';
import { AppError, serializeError } from '../../shared/contract';
import { printable } from '../../shared/printable';

/** What every command gets: the resolved data folder and a lazily created engine. */
export interface CliContext {
  dataDir(): string;
  /** The engine, created on first use for the given host kind (`serve` or `cli`). */
  core(host?: 'cli' | 'serve'): Core;
  /** Whether progress may redraw one line (a terminal) or must print plain lines (pipes, CI). */
  isTty: boolean;
}

/** Build the context from the global options of the root program. */
export function createCliContext(program: Command): CliContext {
  let core: Core | undefined;
  const dataDir = () => resolveDataDir(program.opts<{ dataDir?: string }>().dataDir);
  return {
    dataDir,
    core: (host = 'cli') => (core ??= createCore({ host, dataDir: dataDir() })),
    isTty: Boolean(process.stderr.isTTY),
  };
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
