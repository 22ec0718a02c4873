import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_COMMITS } from '../../../shared/defaults';
import { parseKs } from '../../../core/eval/metrics';
import { PRECISION_DEFAULTS, SCOPE_DEFAULTS } from '../../../shared/defaults';
import type * as Evaluate from '../../../core/eval/evaluate';
import type * as Format from '../../../shared/evalFormat/format';
import type * as Product from '../../../core/eval/product';
import type * as PipelineSetup from '../../../core/eval/pipelineSetup';
import type * as Search from '../../../core/search/search';
import type { EvalSearchMode } from '../../../core/eval/product';
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
  mode: EvalSearchMode;
}

/** The chat route `--chat-evidence` takes for each search mode (chosen, so no router call). */
const CHAT_ROUTE_OF_MODE = { keyword: 'bm25', hybrid: 'hybrid', semantic: 'semantic' } as const satisfies Record<EvalSearchMode, string>;

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

function parseKOption(value: string): number[] {
  const ks = parseKs(value);
  if (!ks) throw new InvalidArgumentError(`"${value}" is not a list of cut-offs; use whole numbers from 1 to 100 separated by commas, e.g. 1,5,10.`);
  return ks;
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
    .addOption(
      new Option('--mode <mode>', 'search mode to measure; hybrid and semantic embed the index before each task (built-in embedder)')
        .choices(['keyword', 'hybrid', 'semantic'])
        .default('keyword'),
    )
    .option('--pipeline', 'also run the retrieval pipeline (scope, precision, package) on each task: candidate and package recall, judgments, tokens')
    .addOption(new Option('--judge <judge>', 'pipeline judge: yes keeps every candidate, oracle answers yes exactly for the gold files and changed symbols, model asks the configured model').choices(['yes', 'oracle', 'model']).default('model'))
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
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      try {
        // The evaluation code loads when the command runs, not at every `cra` start.
        /* eslint-disable @typescript-eslint/no-require-imports -- see context.ts */
        const { evaluateRepository } = require('../../../core/eval/evaluate') as typeof Evaluate;
        const { formatReport } = require('../../../shared/evalFormat/format') as typeof Format;
        const { productRetrieval } = require('../../../core/eval/product') as typeof Product;
        const { pipelineEvalOptions } = require('../../../core/eval/pipelineSetup') as typeof PipelineSetup;
        const { sharedDefaultEmbedder } = require('../../../core/search/search') as typeof Search;
        /* eslint-enable @typescript-eslint/no-require-imports */
        const scope = {
          ...(opts.maxCandidates !== undefined ? { maxCandidates: opts.maxCandidates } : {}),
          ...(opts.searchSeeds !== undefined ? { searchSeeds: opts.searchSeeds } : {}),
          ...(opts.minCoChange !== undefined ? { minCoChange: opts.minCoChange } : {}),
        };
        const precision = {
          ...(opts.maxSymbols !== undefined ? { maxSymbols: opts.maxSymbols } : {}),
          ...(opts.maxSymbolsPerFile !== undefined ? { maxSymbolsPerFile: opts.maxSymbolsPerFile } : {}),
        };
        const pipeline = opts.pipeline
          ? pipelineEvalOptions(ctx.dataDir(), { judge: opts.judge ?? 'model', contextWindow: opts.contextWindow, reservedTokens: opts.reservedTokens, concurrency: opts.concurrency, scope, precision })
          : undefined;
        const { report, file } = await evaluateRepository({
          dataDir: ctx.dataDir(),
          repoPath: repo,
          commits: opts.commits,
          since: opts.since,
          tasksFile: opts.tasks ? resolve(opts.tasks) : undefined,
          ks: opts.k,
          ...(pipeline ? { pipeline } : {}),
          ...(opts.chatEvidence ? { chatEvidence: { mode: CHAT_ROUTE_OF_MODE[opts.mode], embedder: sharedDefaultEmbedder() } } : {}),
          retrieval: productRetrieval({ mode: opts.mode }),
          signal: controller.signal,
          onProgress: (p) => reportProgress(ctx.isTty, p),
        });
        if (ctx.isTty) process.stderr.write('\r\x1b[K');
        if (opts.out) writeFileSync(resolve(opts.out), `${JSON.stringify(report, null, 2)}\n`);
        process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, { file }));
      } finally {
        process.removeListener('SIGINT', stop);
      }
    });
};

function reportProgress(isTty: boolean, p: { phase: string; done: number; total: number; message: string }): void {
  const line = printable(p.total > 0 ? `[${p.done}/${p.total}] ${p.message}` : `${p.phase}: ${p.message}`);
  if (isTty) process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns || 100) - 1)}`);
  else process.stderr.write(`${line}\n`);
}
