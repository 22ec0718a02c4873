import { resolve } from 'node:path';
import type { IndexSummary, RunProgress } from '../../../shared/contract';
import { formatPhases } from '../../../shared/format';
import { printable } from '../../../shared/printable';
import type { EmbedSummary } from '../../../shared/contract/runs';
import type { CommandModule } from '../context';

/** The folder as the engine gets it: absolute (a `cra serve` takes no relative path); `~` is left for the engine to expand. */
function resolvePath(path: string): string {
  return path.startsWith('~') ? path : resolve(path);
}

interface IndexOpts {
  json?: boolean;
  verbose?: boolean;
  full?: boolean;
  embed?: boolean;
}

/** One progress line: `parsing 120/668 files · 85.3 files/s · ETA 7 s`. */
export function formatProgress(p: RunProgress): string {
  const parts = [p.total !== undefined ? `${p.phase} ${p.done}/${p.total}` : p.phase];
  if (p.rate !== undefined && p.rate > 0) parts.push(`${p.rate.toFixed(1)} ${p.kind === 'embed' ? 'chunks' : 'files'}/s`);
  if (p.etaSeconds !== undefined && p.total !== undefined && p.done < p.total) parts.push(`ETA ${p.etaSeconds} s`);
  return parts.join(' · ');
}

/** The human summary printed after an index run. */
export function formatSummary(name: string, s: IndexSummary): string {
  const lines = [
    `Indexed ${printable(name)} in ${(s.durationMs / 1000).toFixed(1)} s: ${s.files} files (${s.parsed} parsed, ${s.removed} removed), ${s.symbols} symbols, ` +
      `${s.references} references, ${s.dependencies} dependencies, ${s.commits} commits, ${s.coChangePairs} co-change pairs, ${s.chunks} chunks.`,
  ];
  if (s.skipped.length > 0) lines.push(`${s.skipped.length} files recorded but not parsed (binary, oversize, minified, generated); -v lists them.`);
  return lines.join('\n');
}

/** Draws progress on stderr: one redrawn line on a terminal, plain lines (phase changes, every 10%) otherwise. */
function progressPrinter(isTty: boolean, verbose: boolean): { update(p: RunProgress): void; end(): void } {
  let lastPhase = '';
  let lastDecile = -1;
  let drawn = false;
  return {
    update(p) {
      if (isTty) {
        process.stderr.write(`\r\x1b[2K${formatProgress(p)}`);
        drawn = true;
        return;
      }
      const decile = p.total ? Math.floor((p.done / p.total) * 10) : -1;
      if (p.phase !== lastPhase || decile !== lastDecile || verbose) process.stderr.write(`${formatProgress(p)}${verbose && p.message ? `  ${printable(p.message)}` : ''}\n`);
      lastPhase = p.phase;
      lastDecile = decile;
    },
    end() {
      if (drawn) process.stderr.write('\r\x1b[2K');
    },
  };
}

export const registerIndex: CommandModule = (program, ctx) => {
  program
    .command('index')
    .description('index (or incrementally re-index) a repository folder')
    .argument('<path>', 'the repository folder')
    .option('--json', 'print one JSON summary object on stdout')
    .option('-v, --verbose', 'print the progress as lines (each phase, then up to 5 a second), the time per phase and the skipped files')
    .option('--full', 're-parse every file and re-read the git history')
    .option('--embed', 'then embed the chunks that have no vector yet (the app does this by itself)')
    .action(async (path: string, opts: IndexOpts) => {
      const engine = ctx.client('index');
      const printer = progressPrinter(ctx.isTty, Boolean(opts.verbose));
      const showProgress = !opts.json || opts.verbose;
      let toldWaiting = false;
      const off = engine.on('run/progress', (p) => {
        // Waiting for another index is said once on stderr even with --json: it explains the pause.
        if (p.kind === 'index' && p.phase === 'waiting' && !toldWaiting) {
          toldWaiting = true;
          printer.end();
          process.stderr.write(`${p.message ?? 'Waiting for another index of this repository'} (a \`cra index\` elsewhere, or the app)…\n`);
          return;
        }
        if ((p.kind === 'index' || p.kind === 'embed') && showProgress) printer.update(p);
      });
      let runId: string | undefined;
      const onSigint = () => runId && engine.cancel(runId);
      process.once('SIGINT', onSigint);
      try {
        const added = await engine.request('repos/add', { path: resolvePath(path), watch: false, full: Boolean(opts.full) });
        runId = added.runId;
        const summary = (await engine.wait(runId)) as IndexSummary;
        printer.end();
        if (!opts.json) {
          process.stdout.write(`${formatSummary(added.repo.name, summary)}\n`);
          if (opts.verbose) {
            process.stdout.write(`Time: ${formatPhases(summary.phaseMs)}\n`);
            for (const s of summary.skipped) process.stdout.write(`  skipped ${printable(s.path)} (${s.reason})\n`);
          }
        }
        let embedded: EmbedSummary | undefined;
        if (opts.embed) {
          runId = (await engine.request('search/embed', { repoId: added.repo.id })).runId;
          embedded = (await engine.wait(runId)) as EmbedSummary;
          printer.end();
          if (!opts.json) process.stdout.write(`Embedded ${embedded.embedded} of ${embedded.chunks} chunks (${embedded.embedderId}; ${embedded.reused} reused) in ${(embedded.durationMs / 1000).toFixed(1)} s.\n`);
        }
        if (opts.json) process.stdout.write(`${JSON.stringify({ repoId: added.repo.id, ...toJson(summary), ...(embedded ? { embeddings: embedded } : {}) })}\n`);
      } finally {
        printer.end();
        off();
        process.removeListener('SIGINT', onSigint);
        await engine.dispose();
      }
    });
};

function toJson(s: IndexSummary) {
  const { files, symbols, references, dependencies, commits, coChangePairs, chunks, durationMs, skipped, parsed, removed, phaseMs } = s;
  return { files, symbols, references, dependencies, commits, coChangePairs, chunks, durationMs, skipped, parsed, removed, phaseMs };
}
