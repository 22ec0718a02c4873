import { printable } from '../../../shared/printable';
import { openRepo, type CommandModule } from '../context';

/**
 * `cra summarize [path]`: build or update the repository's summary tree (RAPTOR) with the model of
 * the summarize stage; needs vectors (`cra embed`). Progress per level on stderr; Ctrl+C cancels
 * and keeps the previous tree.
 */
export const registerSummarize: CommandModule = (program, ctx) => {
  program
    .command('summarize')
    .description('build or update the summary tree of an indexed, embedded repository (clusters of files summarised level by level; unchanged clusters are kept)')
    .argument('[path]', 'the indexed repository', '.')
    .option('--json', 'print the result as JSON')
    .action(async (path: string, opts: { json?: boolean }) => {
      const { engine, repo } = await openRepo(ctx, path);
      let runId: string | undefined;
      const stopProgress = engine.on('run/progress', (p) => {
        if (p.runId === runId && !opts.json) process.stderr.write(`${printable(p.phase)}: ${p.done}/${p.total ?? '?'} clusters\n`);
      });
      const cancel = () => runId && engine.cancel(runId);
      process.once('SIGINT', cancel);
      try {
        runId = (await engine.request('summaries/build', { repoId: repo.id })).runId;
        const result = await engine.wait(runId, 'summarize');
        if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        else process.stdout.write(`${result.levels.map((l) => `level ${l.level}: ${l.summaries} ${l.summaries === 1 ? 'summary' : 'summaries'}`).join('\n')}\n${result.summarized} written by the model, ${result.reused} kept from the last build.\n`);
      } finally {
        process.removeListener('SIGINT', cancel);
        stopProgress();
        await engine.dispose();
      }
    });
};
