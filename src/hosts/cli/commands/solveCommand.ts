import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { z } from 'zod';
import type { ProgressNode, SolveOutcome } from '../../../shared/contract';
import { AppError } from '../../../shared/contract/errors';
import type * as Plans from '../../../shared/contract/plans';
import type * as Solve from '../../../shared/contract/plansRuns';
import { printable } from '../../../shared/printable';
import { openRepo, requireLoadableConfig, type CommandModule } from '../context';

/** Read a JSON file given on the command line as `schema` (a saved PlanArtifact's `plan` is taken too). */
function readJsonFile<T>(file: string, schema: z.ZodType<T>, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(resolve(file), 'utf8'));
  } catch (error) {
    throw new AppError('VALIDATION', `${file} is not a readable JSON ${what}: ${(error as Error).message}`);
  }
  const inner = value && typeof value === 'object' && 'plan' in value && what === 'plan' ? (value as { plan: unknown }).plan : value;
  const parsed = schema.safeParse(inner);
  if (!parsed.success) throw new AppError('VALIDATION', `${file} is not a valid ${what}:\n${parsed.error.issues.map((i) => `  - ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n')}`);
  return parsed.data;
}

/** The tree as one line per node, indented, with its status. */
function formatTree(nodes: readonly ProgressNode[], depth = 0): string[] {
  return nodes.flatMap((n) => [`${'  '.repeat(depth)}${n.status === 'done' ? '✓' : n.status === 'failed' ? '✗' : n.status === 'running' ? '…' : n.status === 'skipped' ? '-' : ' '} ${n.label}`, ...formatTree(n.children ?? [], depth + 1)]);
}

/** The outcome as people read it. */
export function formatOutcome(solveRunId: string, outcome: SolveOutcome): string {
  const lines = [`Solve ${solveRunId}: ${outcome.status}`, ...outcome.completed.map((c) => `  done      ${c.partId}/${c.stepId}`), ...outcome.notCompleted.map((n) => `  not done  ${n.partId}${n.stepId ? `/${n.stepId}` : ''}: ${n.reason.split('\n')[0]}`)];
  if (outcome.files.length) lines.push(`Changed in the run's worktree (your files are untouched): ${outcome.files.join(', ')}`);
  return printable(`${lines.join('\n')}\n`, { multiline: true });
}

/**
 * `cra solve "<task>"`: the solve orchestrator (meta-plan → part plans → steps → adjustments) in a
 * worktree of ours; `--plan FILE` one implement pass of a plan; `--meta-plan FILE` skips the
 * meta-plan pass; `--resume RUN` continues a cancelled or interrupted run; `--list` lists runs.
 * The user's working tree is never written: the diffs are kept for review.
 */
export const registerSolve: CommandModule = (program, ctx) => {
  program
    .command('solve')
    .description("solve a coding task in an isolated worktree (your working tree is not touched): plan, implement step by step, validate; diffs kept for review")
    .argument('[task]', "what should change (with --plan, default: the plan's summary)")
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--plan <file>', 'implement this plan (a cra plan --out file) in one pass')
    .option('--meta-plan <file>', 'use this decomposition (JSON: task_summary, parts) instead of the meta-plan pass')
    .option('--include-uncommitted', 'start from your uncommitted changes (copied into the run, not changed)')
    .option('--allow-unsandboxed-validation', 'run the validation commands without an OS sandbox where this machine has none (with your rights; see [sandbox] in config.toml)')
    .option('--resume <run>', 'continue a cancelled or interrupted run from its last completed step')
    .option('--list', 'list the solve runs of the repository')
    .option('--json', 'print JSON')
    .action(async (task: string | undefined, opts: { repo: string; plan?: string; metaPlan?: string; includeUncommitted?: boolean; allowUnsandboxedValidation?: boolean; resume?: string; list?: boolean; json?: boolean }) => {
      if (opts.plan && opts.metaPlan) throw new AppError('VALIDATION', '--plan and --meta-plan are mutually exclusive: give one.');
      if (!opts.list && !opts.resume && !opts.plan && !task?.trim()) throw new AppError('VALIDATION', 'Give the task: cra solve "<what should change>" (or --resume RUN, or --list).');
      // The schemas (zod) load with the command, not at start (see context.ts).
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const plan = opts.plan ? readJsonFile(opts.plan, (require('../../../shared/contract/plans') as typeof Plans).planSchema, 'plan') : undefined;
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const metaPlan = opts.metaPlan ? readJsonFile(opts.metaPlan, (require('../../../shared/contract/plansRuns') as typeof Solve).metaPlanSchema, 'meta-plan') : undefined;
      const { engine, repo } = await openRepo(ctx, opts.repo);
      try {
        if (opts.list) {
          const { runs } = await engine.request('plans/listRuns', { repoId: repo.id });
          if (opts.json) return void process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
          if (runs.length === 0) return void process.stdout.write('No solve runs yet; start one with cra solve "<task>".\n');
          for (const r of runs) process.stdout.write(`${printable(`${r.solveRunId}  ${r.startedAt}  ${r.mode}  ${r.status}  ${r.task.split('\n')[0]!.slice(0, 80)}`)}\n`);
          return;
        }
        await requireLoadableConfig(engine);
        let runId: string | undefined;
        let lastPhase = '';
        // The --resume hint only once the run's record exists (a resumed run's does; a new run's once
        // it reports progress): a run killed before has nothing to resume, and the hint would fail.
        let resumable: string | undefined;
        const hint = () => {
          if (resumable) process.stderr.write(`If it stops, resume it with cra solve --resume ${resumable}\n`);
          resumable = undefined;
        };
        const stopProgress = engine.on('run/progress', (p) => {
          if (p.runId !== runId) return;
          hint();
          if (opts.json || p.phase === lastPhase) return;
          lastPhase = p.phase;
          process.stderr.write(`${printable(p.phase)}…\n`);
        });
        const stop = () => {
          if (runId) engine.cancel(runId);
        };
        process.once('SIGINT', stop);
        try {
          const started = await engine.request('plans/solve', { repoId: repo.id, task: task ?? '', includeUncommitted: Boolean(opts.includeUncommitted), allowUnsandboxedValidation: Boolean(opts.allowUnsandboxedValidation), ...(plan ? { plan } : {}), ...(metaPlan ? { metaPlan } : {}), ...(opts.resume ? { resume: opts.resume } : {}) });
          runId = started.runId;
          resumable = started.solveRunId;
          process.stderr.write(`Solve run ${started.solveRunId}\n`);
          if (opts.resume) hint();
          const outcome = await engine.wait(runId, 'solve');
          const { run } = await engine.request('plans/getRun', { repoId: repo.id, solveRunId: started.solveRunId });
          if (opts.json) process.stdout.write(`${JSON.stringify({ outcome, run }, null, 2)}\n`);
          else {
            const tree = (await engine.request('run/list', {})).find((r) => r.runId === runId)?.progress?.steps;
            if (tree) process.stdout.write(`${printable(formatTree(tree).join('\n'), { multiline: true })}\n`);
            process.stdout.write(formatOutcome(started.solveRunId, outcome));
          }
          if (outcome.status !== 'complete') process.exitCode = outcome.status === 'partial' ? 2 : 1;
        } finally {
          process.removeListener('SIGINT', stop);
          stopProgress();
        }
      } finally {
        await engine.dispose();
      }
    });
};
