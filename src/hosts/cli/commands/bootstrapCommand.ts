import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type * as TrainingRuns from '../../../core/export/trainingRuns';
import type { BootstrapSummary } from '../../../core/export/bootstrap';
import type { DatasetStage } from '../../../core/export/dataset';
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
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (see context.ts)
      const { startBootstrap } = require('../../../core/export/trainingRuns') as typeof TrainingRuns;
      const core = ctx.core();
      const repoPath = resolve(repo);
      let runId: string | undefined;
      const stop = () => {
        if (runId) core.runs.cancel(runId);
      };
      process.once('SIGINT', stop);
      try {
        const started = startBootstrap(core.runs, {
          dataDir: ctx.dataDir(),
          repoPath,
          commits: opts.commits,
          ...(opts.out ? { out: opts.out } : {}),
          ...(opts.force ? { force: true } : {}),
          onProgress: (p) => {
            const line = printable(`[${p.done}/${p.total}] ${p.message}`);
            if (ctx.isTty) process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns || 100) - 1)}`);
            else process.stderr.write(`${line}\n`);
          },
          onSummary: (summary) => {
            if (ctx.isTty) process.stderr.write('\r\x1b[K');
            process.stdout.write(opts.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
          },
        });
        runId = started.runId;
        try {
          await started.done;
        } catch (error) {
          if (ctx.isTty) process.stderr.write('\r\x1b[K');
          // Commits finished before Ctrl+C are in the dataset; the same command goes on from there.
          if ((error as { code?: string }).code === 'CANCELLED') process.stderr.write('Stopped. Finished commits are kept; run the same command again to go on.\n');
          throw error;
        }
      } finally {
        process.removeListener('SIGINT', stop);
        await core.dispose();
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
