import { printable } from '../../../shared/printable';
import type { CommandModule } from '../context';

/** `cra logs`: the model call audit log. */
export const registerLogs: CommandModule = (program, ctx) => {
  program
    .command('logs')
    .description('model calls, newest first: time, run, stage, model, tokens, latency, first words')
    .option('--run <id>', 'only calls of this run')
    .option('--stage <stage>', 'only calls of this stage')
    .option('--model <model>', 'only calls to this model')
    .option('--repo <id>', "a repository's log instead of the user-level one")
    .option('--errors', 'only failed calls')
    .option('--limit <n>', 'how many', (v) => Number(v), 50)
    .option('--id <n>', 'print one call whole', (v) => Number(v))
    .option('--json', 'print JSON')
    .action(async (opts: { run?: string; stage?: string; model?: string; repo?: string; errors?: boolean; limit: number; id?: number; json?: boolean }) => {
      const core = ctx.core();
      try {
        const repo = opts.repo ? { repoId: opts.repo } : {};
        if (opts.id !== undefined) {
          const call = await core.handlers['logs/get']({ ...repo, id: opts.id });
          process.stdout.write(opts.json ? `${JSON.stringify(call, null, 2)}\n` : printable(`#${call.id} ${call.createdAt} ${call.model} ${call.stage ?? ''}\n--- system\n${call.system ?? ''}\n--- prompt\n${call.prompt}\n--- response\n${call.response ?? call.error ?? ''}\n--- params\n${JSON.stringify(call.params)}\n`, { multiline: true }));
          return;
        }
        const page = await core.handlers['logs/list']({ ...repo, runId: opts.run, stage: opts.stage, model: opts.model, errorsOnly: Boolean(opts.errors), limit: Math.min(Math.max(1, opts.limit || 50), 500), offset: 0 });
        if (opts.json) return void process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
        const run = page.run;
        if (run) process.stdout.write(`${printable(`run ${run.runId}  ${run.kind}  ${run.title ?? ''}  ${run.status}  ${run.startedAt} → ${run.finishedAt ?? '…'}${run.error ? `  ${run.error.code}: ${run.error.message}` : ''}`)}\n`);
        if (page.calls.length === 0) return void process.stdout.write('No model calls logged yet.\n');
        for (const c of page.calls) {
          const tokens = `${c.promptTokens ?? '-'}→${c.completionTokens ?? '-'} tok`;
          const state = c.errorCode ? `ERROR ${c.errorCode}` : c.preview.slice(0, 60);
          process.stdout.write(`${printable(`#${c.id}  ${c.createdAt}  ${c.runId ?? '-'}  ${c.stage ?? '-'}  ${c.model}  ${tokens}  ${c.latencyMs ?? '-'} ms  ${state}`)}\n`);
        }
        process.stdout.write(`${page.calls.length} of ${page.total} calls\n`);
      } finally {
        await core.dispose();
      }
    });
};
