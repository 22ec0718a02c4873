import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from 'commander';
import type * as Config from '../../../core/config';
import type * as Indexed from '../../../core/repos/indexed';
import { formatReasons, type ContextPackage, type RetrievalSummary } from '../../../shared/contract';
import { printable } from '../../../shared/printable';
import type { CommandModule } from '../context';

function parseBudget(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError(`"${value}" is not a budget; give a whole number of tokens above 0, e.g. --budget 16000.`);
  return n;
}

/** The package for a reader: what is in, why, at what cost, and what was left out. */
function describe(pkg: ContextPackage, summary: RetrievalSummary): string {
  const out: string[] = [];
  const a = summary.analysis;
  out.push(a.enrichment === 'ok' ? 'Task analysis: deterministic + enrichment by the task_analysis model' : `Task analysis: deterministic only (${a.enrichment}: ${printable(a.reason ?? '')})`);
  const s = summary.symbols;
  out.push(`Package: ${summary.files} files · ${s.primary} primary, ${s.supporting} supporting, ${s.type_context} type_context · ${summary.tokensUsed} of ${summary.budget} tokens · ${summary.judgments} judgments`);
  for (const f of pkg.files) {
    out.push('', `${printable(f.path)}  tier ${f.tier} · ${printable(formatReasons(f.reasons))}`);
    for (const i of f.items) {
      const what = i.symbol ? `${printable(i.symbol.qualifiedName)}  ${i.symbol.role}, ${i.detail === 'full' ? 'full source' : 'signature'}` : 'whole file';
      out.push(`  ${what} · lines ${i.startLine}-${i.endLine} · ${i.tokens} tokens${i.reasons.length ? ` · ${printable(formatReasons(i.reasons))}` : ''}`);
    }
  }
  if (pkg.dropped.length) {
    out.push('', 'Dropped:');
    for (const d of pkg.dropped) out.push(`  ${printable(d.path)}${d.symbol ? `:${printable(d.symbol)} (${d.role})` : ''} · ${printable(formatReasons(d.reasons.slice(-1)))}`);
  }
  out.push('', `Task id: ${summary.taskId}`);
  return `${out.join('\n')}\n`;
}

/**
 * `cra retrieve`: one `retrieve` run — task analysis → scope → precision → context package — and
 * the package printed: files with their tier and reasons, symbols with their role and cost, the
 * tokens used of the budget, what was dropped; `--json` prints {summary, package}, `--markdown`
 * the package as the execute prompt's context.
 */
export const registerRetrieve: CommandModule = (program, ctx) => {
  program
    .command('retrieve')
    .description('build the context package for a coding task: files and symbols by binary judgments, within a token budget, each with its reasons')
    .argument('<task>', 'the task, in words (name files or symbols when you know them)')
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--budget <tokens>', 'token budget of the package (default: [budget] context_window − reserved_tokens of the config)', parseBudget)
    .option('--json', 'print {summary, package} as JSON')
    .option('--markdown', 'print the package as markdown (the execute prompt context)')
    .action(async (task: string, opts: { repo: string; budget?: number; json?: boolean; markdown?: boolean }) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (see context.ts)
      const { loadUserConfigCached } = require('../../../core/config') as typeof Config;
      loadUserConfigCached(ctx.dataDir());
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs
      const { findIndexedRepo } = require('../../../core/repos/indexed') as typeof Indexed;
      const repo = findIndexedRepo(ctx.dataDir(), opts.repo);
      const core = ctx.core();
      // The package event may come before retrieve/run returns; it is matched by the task id made here.
      const taskId = `t-${randomUUID()}`;
      let result: { pkg: ContextPackage; summary: RetrievalSummary; markdown: string } | undefined;
      const stop = core.events.on('retrieve/package', (e) => {
        if (e.taskId === taskId) result = { pkg: e.package, summary: e.summary, markdown: e.markdown };
      });
      let runId: string | undefined;
      const cancel = () => {
        if (runId) core.runs.cancel(runId);
      };
      process.once('SIGINT', cancel);
      try {
        ({ runId } = await core.handlers['retrieve/run']({ repoId: repo.id, task, taskId, ...(opts.budget ? { budget: opts.budget } : {}) }));
        await core.runs.wait(runId, 'retrieve');
        if (!result) throw new Error('The retrieve run ended without a package.');
        if (opts.json) process.stdout.write(`${JSON.stringify({ summary: result.summary, package: result.pkg })}\n`);
        else if (opts.markdown) process.stdout.write(printable(result.markdown, { multiline: true }));
        else process.stdout.write(describe(result.pkg, result.summary));
      } finally {
        process.removeListener('SIGINT', cancel);
        stop();
        await core.dispose();
      }
    });
};
