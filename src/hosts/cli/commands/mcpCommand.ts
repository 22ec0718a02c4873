import { InvalidArgumentError } from 'commander';
import { packageVersion } from '../../../core/platform/paths';
import type * as Server from '../../mcp/server';
import type { CommandModule } from '../context';

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(n) || n > 3600) throw new InvalidArgumentError(`"${value}" is not a wait; give seconds from 0 to 3600.`);
  return n;
}

/**
 * `cra mcp`: a Model Context Protocol server over stdio for coding agents (Claude Code, Cursor,
 * Continue, Cline, Zed, LM Studio; docs/mcp.md). A contract client like the other hosts; it reads
 * repositories and keeps their index current, and writes nothing to them.
 */
export const registerMcp: CommandModule = (program, ctx) => {
  program
    .command('mcp')
    .description('serve indexed repositories to coding agents over the Model Context Protocol (stdio): search, context packages, code, related files')
    .option('--repo <path>', 'serve only this indexed repository (default: every indexed one; the tools then take a `repo`)')
    .option('--wait <seconds>', 'how long a call waits for an index update of a changed repository before answering from the previous index', parseSeconds, 20)
    .action(async (opts: { repo?: string; wait: number }) => {
      // stdout is the protocol channel: whatever the engine logs goes to stderr.
      console.log = console.error;
      console.info = console.error;
      console.debug = console.error;
      const core = ctx.core('index');
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the SDK loads only for this command (see context.ts)
      const { runMcpStdio } = require('../../mcp/server') as typeof Server;
      await runMcpStdio(core, { repo: opts.repo, waitMs: opts.wait * 1000, version: packageVersion() });
    });
};
