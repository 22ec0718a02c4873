import type { ChatPipelines } from '../../../shared/contract';
import { AppError } from '../../../shared/contract/errors';
import { printable } from '../../../shared/printable';
import { openRepo, type CommandModule } from '../context';
import { parsePipeline } from './chatCommand';

/**
 * The pipelines of a repository as people read them: each usable one (`*` marks the default of new
 * conversations) with its file and what it extends, its warnings, then the refused files with
 * `file:line` and the reason, and a chosen default that can no longer be used.
 */
export function formatPipelines(p: ChatPipelines): string {
  const width = Math.max(...p.pipelines.map((x) => x.name.length));
  const lines: string[] = [];
  for (const x of p.pipelines) {
    const parent = x.lineage.at(-2);
    lines.push(`${x.name === p.defaultPipeline ? '*' : ' '} ${x.name.padEnd(width)}  ${x.file}${parent ? `  (extends ${parent})` : ''}`);
    for (const warning of x.warnings) lines.push(`    warning: ${warning}`);
  }
  lines.push('', `* the default for new conversations: ${p.defaultPipeline}`);
  if (p.chosenDefault) lines.push(`  (the chosen default "${p.chosenDefault.name}" cannot be used now: ${p.chosenDefault.problem})`);
  if (p.problems.length) lines.push('', 'Refused (fix the file to use it):', ...p.problems.map((problem) => `  ${problem}`));
  // Each line escaped on its own: a name or a YAML error with a newline must not break the listing.
  return `${lines.map((line) => printable(line)).join('\n')}\n`;
}

/**
 * `cra pipelines`: the chat pipelines a repository can use and the refused ones (chat/pipelines);
 * `--set-default NAME` / `--unset-default` choose the pipeline new conversations start with
 * (chat/setDefaultPipeline, kept in the registry, as "Make default" on the Chat page).
 */
export const registerPipelines: CommandModule = (program, ctx) => {
  program
    .command('pipelines')
    .description("list a repository's chat pipelines (and the refused ones, with file:line and why); set or unset the default for new conversations")
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--set-default <name>', 'make this pipeline the default of new conversations (a conversation keeps the pipeline it ran)', parsePipeline)
    .option('--unset-default', 'new conversations start with the built-in default pipeline again')
    .option('--json', 'print JSON')
    .action(async (opts: { repo: string; setDefault?: string; unsetDefault?: boolean; json?: boolean }) => {
      if (opts.setDefault !== undefined && opts.unsetDefault) {
        throw new AppError('VALIDATION', 'Give --set-default <name> or --unset-default, not both.');
      }
      const { engine, repo } = await openRepo(ctx, opts.repo);
      try {
        if (opts.setDefault === undefined && !opts.unsetDefault) {
          const listed = await engine.request('chat/pipelines', { repoId: repo.id });
          return void process.stdout.write(opts.json ? `${JSON.stringify(listed, null, 2)}\n` : formatPipelines(listed));
        }
        const changed = await engine.request('chat/setDefaultPipeline', { repoId: repo.id, pipeline: opts.setDefault ?? null });
        if (opts.json) return void process.stdout.write(`${JSON.stringify(changed, null, 2)}\n`);
        process.stdout.write(`${printable(`New conversations of ${changed.repo.name} start with the pipeline "${changed.defaultPipeline}"${changed.defaultPipeline === 'default' ? ' (the built-in one)' : ''}.`)}\n`);
      } finally {
        await engine.dispose();
      }
    });
};
