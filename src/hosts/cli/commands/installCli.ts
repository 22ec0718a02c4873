import { join } from 'node:path';
import { packageRoot } from '../../../core/platform/paths';
import type * as Launcher from '../launcher/cliLauncher';
import type { CommandModule } from '../context';

/** `cra install-cli`: put `cra` on the PATH (a launcher of this checkout in ~/.local/bin), as the app's Help menu does. */
export const registerInstallCli: CommandModule = (program) => {
  program
    .command('install-cli')
    .description('put `cra` on the PATH: a launcher of this checkout in ~/.local/bin (or --bin-dir)')
    .option('--bin-dir <dir>', 'the folder to write `cra` into (default: ~/.local/bin)')
    .action((opts: { binDir?: string }) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (see context.ts)
      const { describeInstall, installCliLauncher } = require('../launcher/cliLauncher') as typeof Launcher;
      const craJs = join(packageRoot(), 'bin', 'cra.js');
      process.stdout.write(`${describeInstall(installCliLauncher({ craJs, ...(opts.binDir ? { binDir: opts.binDir } : {}) }), craJs)}\n`);
    });
};
