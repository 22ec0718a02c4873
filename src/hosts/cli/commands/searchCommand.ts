import { InvalidArgumentError } from 'commander';
import type * as Config from '../../../core/config';
import type * as Indexed from '../../../core/repos/indexed';
import type * as Reasons from '../../../shared/contract/reasons';
import type { EmbedSummary } from '../../../core/search/embedRun';
import type { RepoInfo, RunProgress, SearchMode, SearchResult } from '../../../shared/contract';
import { printable } from '../../../shared/printable';
import type { CliContext, CommandModule } from '../context';

const MODES: readonly SearchMode[] = ['auto', 'keyword', 'semantic', 'hybrid'];

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 200) throw new InvalidArgumentError(`"${value}" is not a limit; use a whole number from 1 to 200.`);
  return n;
}

function parseMode(value: string): SearchMode {
  if (!(MODES as readonly string[]).includes(value)) throw new InvalidArgumentError(`"${value}" is not a mode; use one of ${MODES.join(', ')}.`);
  return value as SearchMode;
}

/**
 * The registered repository for a folder given on the command line, or a one-line error saying
 * what to do (NOT_FOUND / NOT_INDEXED), decided in core as for the app: core/repos/indexed.ts.
 */
function findIndexedRepo(dataDir: string, path: string): RepoInfo {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (see context.ts)
  return (require('../../../core/repos/indexed') as typeof Indexed).findIndexedRepo(dataDir, path);
}

export const registerSearch: CommandModule = (program, ctx) => {
  program
    .command('search')
    .description('rank the files of an indexed repository for a query (BM25 + graph signals, + vectors when embedded)')
    .argument('<query>', 'words or identifiers to look for')
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--limit <n>', 'how many files to list (default: [retrieval] top_k of the config, 20)', parseLimit)
    .option('--mode <mode>', `ranking: ${MODES.join(' | ')}`, parseMode, 'auto' as SearchMode)
    .option('--json', 'print {results:[{path, score, symbols, lines, bestLine, why:[{kind, detail}]}], mode, tookMs, terms, vectorCoverage?, note?}')
    .action(async (query: string, opts: { repo: string; limit?: number; mode: SearchMode; json?: boolean }) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (see context.ts)
      const { loadUserConfigCached } = require('../../../core/config') as typeof Config;
      loadUserConfigCached(ctx.dataDir()); // a broken config fails here naming file:line and key; the app falls back to defaults
      const repo = findIndexedRepo(ctx.dataDir(), opts.repo);
      const core = ctx.core();
      try {
        const response = await core.handlers['search/query']({ repoId: repo.id, query, limit: opts.limit, mode: opts.mode });
        if (opts.json) process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
        else {
          process.stdout.write(formatTable(response.results, `${response.results.length} files · ${response.mode} · ${response.tookMs} ms`));
          // No or partial vectors, or hybrid that fell back to keyword: on stderr, so the listing stays parseable.
          if (response.note) process.stderr.write(`Note: ${response.note}\n`);
        }
      } finally {
        await core.dispose();
      }
    });

  program
    .command('embed')
    .description('compute vectors for the chunks of an indexed repository that have none yet (embedded model, no server)')
    .argument('[path]', 'the indexed repository', '.')
    .option('--json', 'print the summary as JSON')
    .action(async (path: string, opts: { json?: boolean }) => {
      const repo = findIndexedRepo(ctx.dataDir(), path);
      await runEmbedding(ctx, repo, opts.json === true);
    });
};

async function runEmbedding(ctx: CliContext, repo: RepoInfo, json: boolean): Promise<void> {
  const core = ctx.core();
  const stopProgress = core.events.on('run/progress', (p: RunProgress) => {
    if (p.kind !== 'embed') return;
    const eta = p.etaSeconds !== undefined ? `, ${p.etaSeconds}s left` : '';
    const rate = p.rate !== undefined ? `, ${p.rate.toFixed(1)} chunks/s` : '';
    const line = `${p.phase}: ${p.done}/${p.total ?? '?'}${rate}${eta}`;
    if (ctx.isTty) process.stderr.write(`\r\x1b[K${line}`);
    else process.stderr.write(`${line}\n`);
  });
  const onSigint = () => core.runs.cancelAll();
  process.once('SIGINT', onSigint);
  try {
    const { runId } = await core.handlers['search/embed']({ repoId: repo.id });
    const summary = await core.runs.wait(runId);
    if (ctx.isTty) process.stderr.write('\r\x1b[K');
    process.stdout.write(json ? `${JSON.stringify(summary, null, 2)}\n` : `${describeSummary(summary)}\n`);
  } finally {
    process.off('SIGINT', onSigint);
    stopProgress();
    await core.dispose();
  }
}

function describeSummary(summary: unknown): string {
  const s = summary as EmbedSummary;
  return `Embedded ${s.embedded} of ${s.chunks} chunks with ${s.embedderId} (${s.reused} reused from unchanged text, ${s.removed} stale vectors removed) in ${(s.durationMs / 1000).toFixed(1)} s.`;
}

/** The compact listing: rank, path:best line, score, best symbols with line ranges, and why (from the reasons' kinds; control characters escaped). */
export function formatTable(results: readonly SearchResult[], footer: string): string {
  if (results.length === 0) return `No matching files. (${footer})\n`;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- zod stays out of `cra --version` (see context.ts)
  const { formatReasons } = require('../../../shared/contract/reasons') as typeof Reasons;
  const ats = results.map((r) => (r.bestLine !== null ? `${printable(r.path)}:${r.bestLine}` : printable(r.path)));
  const width = Math.min(66, Math.max(...ats.map((a) => a.length)));
  const lines = results.map((r, i) => {
    const symbols = r.symbols
      .slice(0, 3)
      .map((s) => `${printable(s.name)} ${s.startLine}-${s.endLine}`)
      .join(', ');
    const head = `${String(i + 1).padStart(3)}  ${ats[i]!.padEnd(width)}  ${r.score.toFixed(3)}`;
    const detail = [symbols, printable(formatReasons(r.why))].filter(Boolean).join('  · ');
    return `${head}\n     ${detail}`;
  });
  return `${lines.join('\n')}\n(${footer})\n`;
}
