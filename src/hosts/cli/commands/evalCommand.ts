import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { RequestInput } from '../../../shared/contract/api';
import type { RunProgress } from '../../../shared/contract/runs';
import { DEFAULT_COMMITS, PRECISION_DEFAULTS, SCOPE_DEFAULTS } from '../../../shared/defaults';
import type * as Format from '../../../shared/evalFormat/format';
import { printable } from '../../../shared/printable';
import type { CommandModule } from '../context';

interface EvalOptions {
  commits: number;
  since?: string;
  tasks?: string;
  k: number[];
  json?: boolean;
  out?: string;
  pipeline?: boolean;
  judge?: string;
  contextWindow?: number;
  reservedTokens?: number;
  maxCandidates?: number;
  searchSeeds?: number;
  minCoChange?: number;
  maxSymbols?: number;
  maxSymbolsPerFile?: number;
  concurrency?: number;
  chatEvidence?: boolean;
  mode: string;
}

function wholeNumber(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`"${value}" is not a valid ${name}; give a whole number, at least ${min}.`);
    return n;
  };
}

function parseCommits(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError(`"${value}" is not a commit count; use a whole number from 1 to 1000.`);
  return n;
}

/** The list's syntax only: the cut-offs' range is the contract's to check (eval/start). */
function parseKOption(value: string): number[] {
  const ks = value.split(',').map((p) => p.trim()).filter(Boolean).map(Number);
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k))) throw new InvalidArgumentError(`"${value}" is not a list of cut-offs; use whole numbers from 1 to 100 separated by commas, e.g. 1,5,10.`);
  return ks;
}

/** The eval/start request the flags ask for (the contract validates it: modes, judges, the budget). */
function evalRequest(repo: string, opts: EvalOptions): RequestInput<'eval/start'> {
  const scope = {
    ...(opts.maxCandidates !== undefined ? { maxCandidates: opts.maxCandidates } : {}),
    ...(opts.searchSeeds !== undefined ? { searchSeeds: opts.searchSeeds } : {}),
    ...(opts.minCoChange !== undefined ? { minCoChange: opts.minCoChange } : {}),
  };
  const precision = {
    ...(opts.maxSymbols !== undefined ? { maxSymbols: opts.maxSymbols } : {}),
    ...(opts.maxSymbolsPerFile !== undefined ? { maxSymbolsPerFile: opts.maxSymbolsPerFile } : {}),
  };
  const budget = {
    ...(opts.contextWindow !== undefined ? { contextWindow: opts.contextWindow } : {}),
    ...(opts.reservedTokens !== undefined ? { reservedTokens: opts.reservedTokens } : {}),
  };
  const pipeline = {
    judge: opts.judge as NonNullable<RequestInput<'eval/start'>['pipeline']>['judge'],
    ...(Object.keys(budget).length ? { budget } : {}),
    ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
    ...(Object.keys(scope).length ? { scope } : {}),
    ...(Object.keys(precision).length ? { precision } : {}),
  };
  return {
    // Paths resolved here, where the user typed them (the engine may run elsewhere: --remote).
    repoPath: resolve(repo),
    commits: opts.commits,
    ...(opts.since !== undefined ? { since: opts.since } : {}),
    ...(opts.tasks ? { tasksFile: resolve(opts.tasks) } : {}),
    ks: opts.k,
    mode: opts.mode as RequestInput<'eval/start'>['mode'],
    ...(opts.pipeline ? { pipeline } : {}),
    ...(opts.chatEvidence ? { chatEvidence: true } : {}),
  };
}

export const registerEval: CommandModule = (program, ctx) => {
  program
    .command('eval')
    .description('measure retrieval on a repository history: model-free search vs a BM25 reference (recall@k, MRR)')
    .argument('<repo>', 'path of a git repository')
    .option('--commits <n>', 'the most recent N qualifying commits', parseCommits, DEFAULT_COMMITS)
    .option('--since <date>', 'only commits after this date (anything git log --since accepts)')
    .option('--tasks <file>', 'JSON lines {id, task, parent, gold: [paths]} instead of mining the history')
    .option('--k <list>', 'cut-offs for recall@k and all-gold@k', parseKOption, [1, 5, 10])
    .option('--json', 'print the JSON report instead of the table')
    .option('--out <file>', 'also write the JSON report to this file')
    .option('--mode <mode>', 'search mode to measure: keyword, hybrid or semantic; hybrid and semantic embed the index before each task (built-in embedder)', 'keyword')
    .option('--pipeline', 'also run the retrieval pipeline (scope, precision, package) on each task: candidate and package recall, judgments, tokens')
    .option('--judge <judge>', 'pipeline judge: yes keeps every candidate, oracle answers yes exactly for the gold files and changed symbols, model asks the configured model', 'model')
    .option('--context-window <n>', 'pipeline budget: context window in tokens (default: [budget] of the config)', wholeNumber('context window', 1))
    .option('--reserved-tokens <n>', 'pipeline budget: tokens kept back (default: [budget] of the config)', wholeNumber('reserved token count', 0))
    .option('--max-candidates <n>', `scope: at most this many candidates (default ${SCOPE_DEFAULTS.maxCandidates})`, wholeNumber('candidate cap', 1))
    .option('--search-seeds <n>', `scope: the search's top hits taken as seeds (default ${SCOPE_DEFAULTS.searchSeeds})`, wholeNumber('seed count', 0))
    .option('--min-co-change <n>', 'scope: shared commits a co-change neighbour needs (default 2)', wholeNumber('co-change count', 1))
    .option('--max-symbols <n>', `precision: at most this many symbols judged in all (default ${PRECISION_DEFAULTS.maxSymbols})`, wholeNumber('symbol cap', 1))
    .option('--max-symbols-per-file <n>', `precision: at most this many symbols judged per file (default ${PRECISION_DEFAULTS.maxSymbolsPerFile})`, wholeNumber('symbol cap', 1))
    .option('--concurrency <n>', 'pipeline: judgments at once (model judge)', wholeNumber('concurrency', 1))
    .option('--chat-evidence', "also measure the evidence a chat turn would send for each task (default pipeline and budget; route chosen from --mode, no model call): gold files in it, beside the search's recall")
    .action(async (repo: string, opts: EvalOptions) => {
      // The evaluation runs in the engine (eval/start, the app's request): this prints its progress and report.
      const engine = ctx.client();
      let runId: string | undefined;
      const cancel = () => {
        if (runId) engine.cancel(runId);
      };
      process.once('SIGINT', cancel);
      // The run's first progress can come before eval/start returns its id: kept until then.
      const early: RunProgress[] = [];
      const show = (p: RunProgress) => reportProgress(ctx.isTty, { phase: p.phase, done: p.done, total: p.total ?? 0, message: p.message ?? '' });
      const stop = engine.on('run/progress', (p) => {
        if (runId === undefined) early.push(p);
        else if (p.runId === runId) show(p);
      });
      try {
        ({ runId } = await engine.request('eval/start', evalRequest(repo, opts)));
        for (const p of early.splice(0)) if (p.runId === runId) show(p);
        const { reportId, file } = await engine.wait(runId, 'eval');
        const report = await engine.request('eval/get', { id: reportId });
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- the formatter loads when a report is printed (see context.ts)
        const { formatReport } = require('../../../shared/evalFormat/format') as typeof Format;
        if (ctx.isTty) process.stderr.write('\r\x1b[K');
        if (opts.out) writeFileSync(resolve(opts.out), `${JSON.stringify(report, null, 2)}\n`);
        process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, { file }));
      } finally {
        process.removeListener('SIGINT', cancel);
        stop();
        await engine.dispose();
      }
    });
};

function reportProgress(isTty: boolean, p: { phase: string; done: number; total: number; message: string }): void {
  const line = printable(p.total > 0 ? `[${p.done}/${p.total}] ${p.message}` : `${p.phase}: ${p.message}`);
  if (isTty) process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns || 100) - 1)}`);
  else process.stderr.write(`${line}\n`);
}
