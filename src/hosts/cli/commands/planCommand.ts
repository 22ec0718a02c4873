import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PlanArtifact } from '../../../shared/contract';
import { printable } from '../../../shared/printable';
import { openRepo, type CommandModule } from '../context';

/** A plan as people read it: the order of files, each file's changes with their edges, the rationale. */
export function formatPlan(artifact: PlanArtifact): string {
  const { plan } = artifact;
  const lines = [`Plan ${artifact.id} · ${artifact.model} · ${artifact.createdAt}${artifact.attempts > 1 ? ` · corrected on retry` : ''}`, `Task: ${artifact.task}`, `Summary: ${plan.task_summary}`, ''];
  const byPath = new Map(plan.affected_files.map((f) => [f.path, f]));
  plan.execution_order.forEach((path, i) => {
    const file = byPath.get(path);
    if (!file) return;
    lines.push(`${i + 1}. ${path} (${file.role})`);
    for (const c of file.changes) {
      lines.push(`   - ${c.action} ${c.symbol}: ${c.description}`);
      if (c.depends_on.length) lines.push(`     after: ${c.depends_on.join(', ')}`);
      if (c.depended_by.length) lines.push(`     before: ${c.depended_by.join(', ')}`);
    }
  });
  lines.push('', `Rationale: ${plan.rationale}`);
  return printable(`${lines.join('\n')}\n`, { multiline: true });
}

/**
 * `cra plan "<task>"`: one plan pass on an indexed repository (a `plan` run); the plan is saved
 * with the repository and printed (`--json`: the PlanArtifact); `--out` also writes it to a file.
 * `cra plans list` / `cra plans show <id>` read the saved plans.
 */
export const registerPlan: CommandModule = (program, ctx) => {
  program
    .command('plan')
    .description('plan a coding task on an indexed repository: files, changes, dependency order and rationale (no code); saved with the repository')
    .argument('<task>', 'what should change')
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--out <file>', 'also write the plan (JSON) to this file')
    .option('--judge-scope', 'judge each scope candidate with the scope model (default: seeds and their neighbours, unjudged)')
    .option('--json', 'print the plan artifact as JSON')
    .action(async (task: string, opts: { repo: string; out?: string; judgeScope?: boolean; json?: boolean }) => {
      const { engine, repo } = await openRepo(ctx, opts.repo, { config: true });
      let runId: string | undefined;
      const stopProgress = engine.on('run/progress', (p) => {
        if (p.runId === runId && !opts.json) process.stderr.write(`${printable(p.phase)}…\n`);
      });
      const stop = () => {
        if (runId) engine.cancel(runId);
      };
      process.once('SIGINT', stop);
      try {
        runId = (await engine.request('plans/create', { repoId: repo.id, task, judgeScope: Boolean(opts.judgeScope) })).runId;
        const { planId, file } = await engine.wait(runId, 'plan');
        const { plan } = await engine.request('plans/get', { repoId: repo.id, planId });
        if (opts.out) writeFileSync(resolve(opts.out), `${JSON.stringify(plan, null, 2)}\n`);
        if (opts.json) process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
        else process.stdout.write(formatPlan(plan));
        if (!opts.json) process.stderr.write(`Saved: ${printable(file)}${opts.out ? ` and ${printable(resolve(opts.out))}` : ''}\n`);
      } finally {
        process.removeListener('SIGINT', stop);
        stopProgress();
        await engine.dispose();
      }
    });

  const plans = program.command('plans').description("a repository's saved plans");
  plans
    .command('list')
    .description('saved plans, newest first')
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--json', 'print JSON')
    .action(async (opts: { repo: string; json?: boolean }) => {
      const { engine, repo } = await openRepo(ctx, opts.repo);
      try {
        const { plans: list } = await engine.request('plans/list', { repoId: repo.id });
        if (opts.json) return void process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        if (list.length === 0) return void process.stdout.write('No plans yet; make one with cra plan "<task>".\n');
        for (const p of list) process.stdout.write(`${printable(`${p.id}  ${p.createdAt}  v${p.version}  ${p.model}  ${p.files} files  ${p.taskSummary}`)}\n`);
      } finally {
        await engine.dispose();
      }
    });
  plans
    .command('show')
    .description('print one saved plan')
    .argument('<id>', 'the plan id (from cra plans list)')
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { repo: string; json?: boolean }) => {
      const { engine, repo } = await openRepo(ctx, opts.repo);
      try {
        const { plan } = await engine.request('plans/get', { repoId: repo.id, planId: id });
        process.stdout.write(opts.json ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
      } finally {
        await engine.dispose();
      }
    });
};
