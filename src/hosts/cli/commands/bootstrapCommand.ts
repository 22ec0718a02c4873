import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { BootstrapSummary } from '../../../shared/contract/training';
import type { RunProgress } from '../../../shared/contract/runs';
import type { DatasetStage } from '../../../shared/contract/stages';
import { printable } from '../../../shared/printable';
import type { CommandModule } from '../context';

function parseCommits(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new InvalidArgumentError(`"${value}" is not a commit count; use a whole number from 1 to 10000.`);
  return n;
}

/** `cra bootstrap <repo>`: synthetic training pairs from the repository's own history, as a `bootstrap` run. */
export const registerBootstrap: CommandModule = (program, ctx) => {
  program
    .command('bootstrap')
    .description('training data from a repository history: scope, precision and execute pairs per qualifying commit (JSONL, chat format)')
    .argument('<repo>', 'path of a git repository')
    .option('--commits <n>', 'the most recent N qualifying commits', parseCommits, 50)
    .option('--out <dir>', 'the dataset folder (default: <data dir>/datasets/bootstrap-<repo name>); an existing dataset is resumed, a folder holding anything else refused')
    .option('--force', 'start a new dataset in --out even if it holds something else (its dataset files are replaced)')
    .option('--json', 'print the summary as JSON')
    .action(async (repo: string, opts: { commits: number; out?: string; force?: boolean; json?: boolean }) => {
      const engine = ctx.client();
      let runId: string | undefined;
      const stop = () => {
        if (runId) engine.cancel(runId);
      };
      process.once('SIGINT', stop);
      // The run's first progress can come before training/bootstrap returns its id: kept until then.
      const early: RunProgress[] = [];
      const show = (p: RunProgress) => {
        const line = printable(`[${p.done}/${p.total ?? 0}] ${p.message ?? ''}`);
        if (ctx.isTty) process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns || 100) - 1)}`);
        else process.stderr.write(`${line}\n`);
      };
      const stopProgress = engine.on('run/progress', (p) => {
        if (runId === undefined) early.push(p);
        else if (p.runId === runId) show(p);
      });
      try {
        // Paths resolved here, where the user typed them (the engine may run elsewhere: --remote).
        ({ runId } = await engine.request('training/bootstrap', { repoPath: resolve(repo), commits: opts.commits, ...(opts.out ? { out: resolve(opts.out) } : {}), ...(opts.force ? { force: true } : {}) }));
        for (const p of early.splice(0)) if (p.runId === runId) show(p);
        let summary: BootstrapSummary;
        try {
          summary = await engine.wait(runId, 'bootstrap');
        } catch (error) {
          if (ctx.isTty) process.stderr.write('\r\x1b[K');
          // Commits finished before Ctrl+C are in the dataset; the same command goes on from there.
          if ((error as { code?: string }).code === 'CANCELLED') process.stderr.write('Stopped. Finished commits are kept; run the same command again to go on.\n');
          throw error;
        }
        if (ctx.isTty) process.stderr.write('\r\x1b[K');
        process.stdout.write(opts.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
      } finally {
        process.removeListener('SIGINT', stop);
        stopProgress();
        await engine.dispose();
      }
    });
};

function formatSummary(s: BootstrapSummary): string {
  const c = s.counts;
  const balance = (stage: DatasetStage) => `${printable(`${stage}.jsonl`)}: ${c[stage].yes} yes, ${c[stage].no} no`;
  return [
    `Dataset: ${printable(s.dir)}`,
    `Commits: ${s.added} added, ${s.skipped} already there (${s.mined} qualifying of ${s.considered} considered) in ${(s.durationMs / 1000).toFixed(1)} s`,
    balance('scope'),
    balance('precision_pass1'),
    balance('precision_pass2'),
    `execute.jsonl: ${c.execute.examples} diffs`,
    '',
  ].join('\n');
}
