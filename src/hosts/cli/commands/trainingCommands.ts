import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CuratedManifest, TrainingPlanArtifact } from '../../../shared/contract';
import { printable } from '../../../shared/printable';
import { requireLoadableConfig, type CommandModule } from '../context';

/** A training plan as people read it. */
export function formatTrainingPlan(a: TrainingPlanArtifact, file: string): string {
  const p = a.plan;
  const h = p.hyperparameters;
  const lines = [
    `Training plan ${a.id} · ${a.model}${a.attempts > 1 ? ' · corrected on retry' : ''}`,
    `Stage: ${p.stage}${p.data.extra_stages.length ? ` (also ${p.data.extra_stages.join(', ')})` : ''}`,
    `Data: ${p.data.sources.join(' + ')}; ${p.data.exclude_default_denied ? 'without' : 'with'} default-denied answers; ${p.data.exclude_failed_runs ? 'without' : 'with'} failed runs; ${p.data.balance_labels ? 'yes/no balanced' : 'unbalanced'}; at most ${p.data.max_examples}; ${Math.round(p.data.test_fraction * 100)}% of tasks held out`,
    `Training: ${h.method}, ${h.epochs} epoch${h.epochs === 1 ? '' : 's'}, learning rate ${h.learning_rate}, batch ${h.batch_size}${h.lora_rank ? `, rank ${h.lora_rank}` : ''}`,
    `Target: ${p.target.metric} ${p.target.current ?? '?'} → ${p.target.goal}`,
    `Why: ${p.rationale}`,
    '',
    'Statistics (weakest first):',
    ...a.statistics.weakest.map((w) => {
      const s = a.statistics.stages.find((x) => x.stage === w.stage);
      return `  ${w.stage}: score ${w.score}, ${s?.calls ?? 0} calls, ${s?.judged ?? 0} judged, default-deny ${s ? (s.defaultDenyRate * 100).toFixed(1) : 0}%, ${s?.synthetic.examples ?? 0} synthetic`;
    }),
    '',
    `Saved: ${file}`,
  ];
  return printable(`${lines.join('\n')}\n`, { multiline: true });
}

function formatCurated(dir: string, m: CuratedManifest): string {
  const lines = [`Dataset: ${dir}`];
  for (const [stage, s] of Object.entries(m.stages)) {
    const d = s.dropped;
    lines.push(
      `${stage}: train ${s.train.examples} (${s.train.yes + s.train.no ? `${s.train.yes} yes, ${s.train.no} no; ` : ''}${s.tasks.train} tasks), test ${s.test.examples} (${s.tasks.test} tasks); ` +
        `left out: ${d.defaultDenied} default-denied, ${d.unparseable} unparseable, ${d.failedRun} from failed runs, ${d.duplicate} duplicates, ${d.balance} to balance, ${d.cap} over the cap`,
    );
  }
  lines.push(m.dpo ? `dpo.jsonl: ${m.dpo.pairs} preference pairs` : 'dpo.jsonl: none (the log holds no plan adjustments)');
  for (const w of m.warnings) lines.push(`warning: ${w}`);
  return printable(`${lines.join('\n')}\n`, { multiline: true });
}

/** `cra train-plan` and `cra curate-data --training-plan FILE`: training data from the log. */
export const registerTraining: CommandModule = (program, ctx) => {
  program
    .command('train-plan')
    .description('analyse the log (and bootstrap datasets) and have the reasoning model write a training plan: which stage, which data, settings, target')
    .option('--out <file>', 'where to write the plan (default: <data dir>/training/plans/<id>.json); an existing file is refused')
    .option('--force', 'replace the --out file if it exists')
    .option('--json', 'print the plan artifact as JSON')
    .action(async (opts: { out?: string; force?: boolean; json?: boolean }) => {
      const engine = ctx.client();
      // A config file that does not load fails first, naming file:line and key.
      await requireLoadableConfig(engine).catch(async (error: unknown) => {
        await engine.dispose();
        throw error;
      });
      let runId: string | undefined;
      const stopProgress = engine.on('run/progress', (p) => {
        if (p.runId === runId && !opts.json) process.stderr.write(`${printable(p.phase)}…\n`);
      });
      const stop = () => {
        if (runId) engine.cancel(runId);
      };
      process.once('SIGINT', stop);
      try {
        runId = (await engine.request('training/trainPlan', { ...(opts.out ? { out: resolve(opts.out) } : {}), ...(opts.force ? { force: true } : {}) })).runId;
        const { file } = await engine.wait(runId, 'train-plan');
        const artifact = JSON.parse(readFileSync(file, 'utf8')) as TrainingPlanArtifact;
        process.stdout.write(opts.json ? `${JSON.stringify(artifact, null, 2)}\n` : formatTrainingPlan(artifact, file));
      } finally {
        process.removeListener('SIGINT', stop);
        stopProgress();
        await engine.dispose();
      }
    });

  program
    .command('curate-data')
    .description('select training data by a training plan: filtered, de-duplicated, balanced, split by task; JSONL per stage in chat format, DPO pairs, a manifest')
    .requiredOption('--training-plan <file>', 'the plan cra train-plan wrote')
    .option('--out <dir>', 'the output folder, which must not exist (default: <data dir>/datasets/curated-<plan id>)')
    .option('--json', 'print the manifest as JSON')
    .action(async (opts: { trainingPlan: string; out?: string; json?: boolean }) => {
      const engine = ctx.client();
      let runId: string | undefined;
      const stop = () => {
        if (runId) engine.cancel(runId);
      };
      process.once('SIGINT', stop);
      try {
        runId = (await engine.request('training/curate', { plan: resolve(opts.trainingPlan), ...(opts.out ? { out: resolve(opts.out) } : {}) })).runId;
        const { dir } = await engine.wait(runId, 'curate-data');
        const manifest = JSON.parse(readFileSync(join(dir, 'curated.json'), 'utf8')) as CuratedManifest;
        process.stdout.write(opts.json ? `${JSON.stringify(manifest, null, 2)}\n` : formatCurated(dir, manifest));
      } finally {
        process.removeListener('SIGINT', stop);
        await engine.dispose();
      }
    });
};
