import type * as ConfigFile from '../../../core/config/configFile';
import type * as ConfigLoad from '../../../core/config/load';
import type { CommandModule } from '../context';

/** `cra init`: write the commented default config (user-level, or a given path). */
export const registerInit: CommandModule = (program, ctx) => {
  program
    .command('init')
    .description('write a commented default config.toml (models, budgets, retrieval, orchestrator)')
    .option('--config <file>', 'where to write it (default: <data dir>/config.toml; a repository config overrides the user one)')
    .option('--force', 'overwrite an existing file')
    .action((opts: { config?: string; force?: boolean }) => {
      // Loaded here, not at start-up: `cra --version` and `--help` never need the config code.
      /* eslint-disable @typescript-eslint/no-require-imports */
      const { initConfigFile } = require('../../../core/config/configFile') as typeof ConfigFile;
      const { userConfigPath } = require('../../../core/config/load') as typeof ConfigLoad;
      /* eslint-enable @typescript-eslint/no-require-imports */
      const file = opts.config ?? userConfigPath(ctx.dataDir());
      const { created } = initConfigFile(file, { force: opts.force });
      process.stdout.write(created ? `Wrote ${file}\nNext: \`cra models pull qwen3:4b\` (or pick models on the Models page).\n` : `${file} already exists; left unchanged (use --force to overwrite).\n`);
    });
};
