import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { packageRoot } from '../../../core/platform/paths';
import { AppError } from '../../../shared/contract/errors';
import type * as Server from '../../serve/server';
import type { CommandModule } from '../context';

/** Parse a TCP port option (0 = any free port). */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError(`"${value}" is not a port; use a whole number from 0 to 65535 (0 picks a free one).`);
  }
  return port;
}

export const registerServe: CommandModule = (program, ctx) => {
  program
    .command('serve')
    .description('serve the app in a browser on 127.0.0.1, with a per-launch token')
    .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, 4317)
    .option('--open', 'open the URL in the default browser')
    .option('--renderer <dir>', 'built renderer to serve', join(packageRoot(), 'out', 'renderer'))
    .action(async (opts: { port: number; open?: boolean; renderer: string }) => {
      const core = ctx.core('serve');
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (see context.ts)
      const { startServer } = require('../../serve/server') as typeof Server;
      let server: Awaited<ReturnType<typeof startServer>>;
      try {
        server = await startServer({ core, port: opts.port, rendererDir: opts.renderer });
      } catch (error) {
        await core.dispose();
        throw listenError(error, opts.port);
      }
      process.stdout.write(`Clean Room is serving on ${server.url}\n`);
      process.stdout.write(`Data: ${ctx.dataDir()}  (Ctrl+C to stop)\n`);
      if (opts.open) openInBrowser(server.url);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
      await core.dispose();
    });
};

/** A port that cannot be listened on, said with the flag that picks another; other errors as they are. */
export function listenError(error: unknown, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const another = 'pick another with --port N (--port 0 picks a free one)';
  if (code === 'EADDRINUSE') return new AppError('CONFLICT', `Port ${port} on 127.0.0.1 is taken (another \`cra serve\`, or another program, listens there); ${another}.`);
  if (code === 'EACCES') return new AppError('VALIDATION', `Port ${port} needs privileges this user does not have; ${another}, above 1023.`);
  return error;
}

function openInBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
  child.on('error', () => process.stderr.write(`cra: could not start ${command}; open the URL yourself.\n`));
  child.unref();
}
