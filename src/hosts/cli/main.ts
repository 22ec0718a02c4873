import { Command } from 'commander';
import { packageVersion } from '../../core/platform/paths';
import { exitQuietlyOnClosedPipe } from './closedPipe';
import { commandModules } from './commands';
import { createCliContext, reportError } from './context';

/** Build the `cra` program: global options, then every command module. */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name('cra')
    .description('Clean Room: index a git repository, search it, and work on it with local models.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--data-dir <dir>', 'where all state lives (default: $CRA_HOME or the per-user data folder)')
    .option('--remote <url>', 'run the command against a running `cra serve` at this address (its printed URL, or with --token)')
    .option('--token <token>', 'the token `cra serve` printed (with --remote)')
    .showHelpAfterError('(run `cra --help` for every command)')
    .configureHelp({ sortSubcommands: false });
  const ctx = createCliContext(program);
  // The engine loads only when a command runs: --version and --help stay a commander start-up.
  program.hook('preAction', (_program, command) => ctx.load(command));
  for (const register of commandModules) register(program, ctx);
  return program;
}

/** Entry point used by bin/cra.js. */
export async function main(argv: string[]): Promise<void> {
  exitQuietlyOnClosedPipe();
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    reportError(error);
  }
}
