import { resolve } from 'node:path';
import type { CommandModule } from '../context';

/** `cra init`: write the commented default config (user-level, or a given path) with the engine's config/init. */
export const registerInit: CommandModule = (program, ctx) => {
  program
    .command('init')
    .description('write a commented default config.toml (models, budgets, retrieval, orchestrator)')
    .option('--config <file>', 'where to write it (default: <data dir>/config.toml; a repository config overrides the user one)')
    .option('--force', 'overwrite an existing file')
    .action(async (opts: { config?: string; force?: boolean }) => {
      const engine = ctx.client();
      try {
        // The path resolved here, where the user typed it (the engine may run elsewhere: --remote).
        const { file, created } = await engine.request('config/init', { ...(opts.config !== undefined ? { file: resolve(opts.config) } : {}), ...(opts.force ? { force: true } : {}) });
        process.stdout.write(created ? `Wrote ${file}\nNext: \`cra models pull qwen3:4b\` (or pick models on the Models page).\n` : `${file} already exists; left unchanged (use --force to overwrite).\n`);
      } finally {
        await engine.dispose();
      }
    });
};
