import type { EnrichSummary } from '../../../shared/contract';
import { printable } from '../../../shared/printable';
import { openRepo, type CommandModule } from '../context';

/** The run's outcome in one paragraph. */
export function formatEnrichSummary(s: EnrichSummary): string {
  const lines = [
    `Described ${s.enriched} file(s) with ${s.model}; ${s.alreadyDone} already done; ${s.failed} failed (invalid replies twice; run again to retry them) — ${s.files} indexed files, ${(s.durationMs / 1000).toFixed(1)} s`,
    s.promoted === undefined ? 'Not promoted: run with --promote to let retrieval (scope tier 4) use the descriptions.' : `Promoted ${s.promoted} file description(s) into the index.`,
  ];
  return printable(`${lines.join('\n')}\n`, { multiline: true });
}

/**
 * `cra enrich <repo> [--promote]`: one `enrich` run — every indexed file described (purpose,
 * domain, module, concepts) by the model of the enrich stage, skipping files an earlier run did —
 * with progress on stderr; `--promote` copies the descriptions into the index for scope tier 4.
 */
export const registerEnrich: CommandModule = (program, ctx) => {
  program
    .command('enrich')
    .description('describe every indexed file (purpose, domain, module, concepts) with the enrich model; resumable; --promote lets retrieval use them')
    .argument('<repo>', 'the indexed repository')
    .option('--promote', 'copy the descriptions into the index (scope tier 4 reads them)')
    .option('--json', 'print the run summary as JSON')
    .action(async (repoPath: string, opts: { promote?: boolean; json?: boolean }) => {
      const { engine, repo } = await openRepo(ctx, repoPath, { config: true });
      let runId: string | undefined;
      const stopProgress = engine.on('run/progress', (p) => {
        if (p.runId !== runId || opts.json) return;
        const line = printable(p.total ? `[${p.done}/${p.total}] ${p.message ?? p.phase}` : `${p.phase}…`);
        if (ctx.isTty) process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns || 100) - 1)}`);
        else process.stderr.write(`${line}\n`);
      });
      const stop = () => {
        if (runId) engine.cancel(runId);
      };
      process.once('SIGINT', stop);
      try {
        runId = (await engine.request('enrich/run', { repoId: repo.id, promote: Boolean(opts.promote) })).runId;
        const summary = await engine.wait(runId, 'enrich');
        if (ctx.isTty && !opts.json) process.stderr.write('\r\x1b[K');
        process.stdout.write(opts.json ? `${JSON.stringify(summary)}\n` : formatEnrichSummary(summary));
      } finally {
        process.removeListener('SIGINT', stop);
        stopProgress();
        await engine.dispose();
      }
    });
};
