import type { ReviewView } from '../../../shared/contract';
import { AppError } from '../../../shared/contract/errors';
import { printable } from '../../../shared/printable';
import { openRepo, type CommandModule } from '../context';

/** The change as a terminal shows it: each file, each hunk with its id (a binary file: its sizes), then the undoable apply. */
export function formatReview(view: ReviewView, withDiff: boolean): string {
  const lines = [`Run ${view.runId} · from ${view.baseCommit.slice(0, 12)} · ${view.files.length} ${view.files.length === 1 ? 'file' : 'files'}`];
  const size = (n: number | null) => (n === null ? 'none' : `${n.toLocaleString('en-US')} bytes`);
  for (const file of view.files) {
    if (file.binary) {
      // No lines to show: the sizes, and the one hunk that writes the whole file.
      lines.push('', `${file.path} (${file.status}, binary: ${size(file.binary.before)} → ${size(file.binary.after)})`);
      lines.push(...file.hunks.map((h) => `  hunk ${h.id}  whole file`));
      continue;
    }
    lines.push('', `${file.path} (${file.status})`);
    for (const hunk of file.hunks) {
      lines.push(`  hunk ${hunk.id}  line ${hunk.oldStart}  +${hunk.added} -${hunk.removed}`);
      if (withDiff) lines.push(...hunk.diff.split('\n').filter((l) => /^[-+ @\\]/.test(l) && !l.startsWith('---') && !l.startsWith('+++')).map((l) => `    ${l}`));
    }
  }
  if (view.undo) lines.push('', `Last apply (${view.undo.runId}, ${view.undo.appliedAt}) can be undone: cra review --undo`);
  return printable(`${lines.join('\n')}\n`, { multiline: true });
}

/**
 * `cra review RUN`: a solve run's change per file and hunk; `--apply` writes all of it (or only the
 * files named with `--file`, or the hunks named with `--hunk`) to the working tree — refused,
 * writing nothing, when an affected file changed since the run started; `--undo` undoes the last apply.
 */
export const registerReview: CommandModule = (program, ctx) => {
  program
    .command('review')
    .description("review a solve run's change per file and hunk; --apply writes the accepted part to the working tree (nothing is written without it)")
    .argument('[run]', 'the run id (from cra solve)')
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--apply', 'write the change to the working tree (all of it unless --file or --hunk narrow it)')
    .option('--file <path...>', 'with --apply: only these files')
    .option('--hunk <id...>', 'with --apply: only these hunks (ids as listed)')
    .option('--undo', 'undo the last apply in this repository')
    .option('--diff', 'print each hunk\'s lines')
    .option('--json', 'print JSON')
    .action(async (runId: string | undefined, opts: { repo: string; apply?: boolean; file?: string[]; hunk?: string[]; undo?: boolean; diff?: boolean; json?: boolean }) => {
      if (opts.undo && (runId || opts.apply)) throw new AppError('VALIDATION', '--undo takes no run and no --apply; run cra review --undo alone.');
      if (!opts.undo && !runId) throw new AppError('VALIDATION', 'Name the run to review (cra review RUN), or use --undo.');
      if ((opts.file || opts.hunk) && !opts.apply) throw new AppError('VALIDATION', '--file and --hunk choose what --apply writes; add --apply.');
      const { engine, repo } = await openRepo(ctx, opts.repo);
      const out = (value: unknown, text: string) => process.stdout.write(opts.json ? `${JSON.stringify(value, null, 2)}\n` : text);
      try {
        if (opts.undo) {
          const undone = await engine.request('review/undo', { repoId: repo.id });
          return void out(undone, `${printable(`Undone the apply of ${undone.runId}: ${undone.restored.join(', ')} restored.`)}\n`);
        }
        const view = await engine.request('review/get', { repoId: repo.id, runId: runId! });
        if (!opts.apply) return void out(view, formatReview(view, Boolean(opts.diff)));
        const files = opts.file ? new Set(opts.file.map((f) => f.replace(/^\.\//, ''))) : null;
        const unknownFiles = files ? [...files].filter((f) => !view.files.some((v) => v.path === f)) : [];
        if (unknownFiles.length) throw new AppError('VALIDATION', `The run did not change ${unknownFiles.join(', ')}; its files: ${view.files.map((f) => f.path).join(', ') || 'none'}.`);
        const hunks = opts.hunk ? new Set(opts.hunk) : null;
        const accepted = view.files.filter((f) => !files || files.has(f.path)).flatMap((f) => f.hunks.map((h) => h.id)).filter((id) => !hunks || hunks.has(id));
        if (hunks) for (const id of hunks) if (!accepted.includes(id)) accepted.push(id); // unknown ids are refused by the engine, by name
        if (accepted.length === 0) throw new AppError('VALIDATION', 'Nothing to apply: the run changed no file.');
        const result = await engine.request('review/apply', { repoId: repo.id, runId: runId!, accepted });
        out(result, `${printable(`Applied ${result.hunks} ${result.hunks === 1 ? 'hunk' : 'hunks'} to ${result.written.join(', ')}. Undo with: cra review --undo`)}\n`);
      } finally {
        await engine.dispose();
      }
    });
};
