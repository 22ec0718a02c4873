import { InvalidArgumentError } from 'commander';
import type * as Budget from '../budgetFile';
import type { EngineClient } from '../../../core/app/contract/client';
import type { BudgetInput, ContextPackage, RetrievalStageName, RetrievalSummary } from '../../../shared/contract';
import { AppError, ERROR_CODES, type ErrorCode } from '../../../shared/contract/errors';
import type * as Reasons from '../../../shared/contract/reasons';
import { printable } from '../../../shared/printable';
import { openRepo, type CommandModule } from '../context';

/** The contract's formatReasons, loaded (with its zod schemas) when a package is printed, not at start. */
const formatReasons: typeof Reasons.formatReasons = (reasons, options) =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('../../../shared/contract/reasons') as typeof Reasons).formatReasons(reasons, options);

/** A whole number for a flag: `min` 1 for the window, 0 for the reserved tokens. */
function wholeNumber(flag: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`"${value}" is not a valid ${flag}; give a whole number of tokens${min > 0 ? ' above 0' : ', 0 or more'}.`);
    return n;
  };
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
      const also = i.alsoCovers?.length ? ` · also the line of ${i.alsoCovers.map((n) => printable(n)).join(', ')}` : '';
      out.push(`  ${what} · lines ${i.startLine}-${i.endLine} · ${i.tokens} tokens${i.reasons.length ? ` · ${printable(formatReasons(i.reasons))}` : ''}${also}`);
    }
  }
  if (pkg.groups?.length) out.push('', 'Related groups:', ...pkg.groups.map((g) => `  ${g.map((p) => printable(p)).join(' · ')}`));
  if (pkg.dropped.length) {
    out.push('', 'Dropped:');
    for (const d of pkg.dropped) out.push(`  ${printable(d.path)}${d.symbol ? `:${printable(d.symbol)} (${d.role})` : ''} · ${printable(formatReasons(d.reasons.slice(-1)))}`);
  }
  out.push('', `Task id: ${summary.taskId}`);
  return `${out.join('\n')}\n`;
}

/** -v: the run's settings, stages and the server's exact token counts, on stderr (stdout stays the package). */
function verbose(summary: RetrievalSummary): string {
  const c = summary.config;
  const lines = [
    c ? `Budget: ${c.contextWindow !== undefined ? `context window ${c.contextWindow} − reserved ${c.reservedTokens} = ` : ''}${summary.budget} tokens · safety margin ${c.safetyMargin} · concurrency ${c.concurrency}` : '',
    ...(summary.stages ?? []).map((s) => `Stage ${s.name}: ${s.skipped ? 'skipped by routing' : `${s.files} files, ${s.decisions} decisions, ${s.ms} ms`}`),
    summary.usage ? `Server token counts: ${summary.usage.calls} calls, ${summary.usage.promptTokens} prompt + ${summary.usage.completionTokens} completion tokens${summary.usage.failed ? `, ${summary.usage.failed} failed calls (default-deny)` : ''}` : '',
  ];
  return lines.filter(Boolean).map((l) => `${l}\n`).join('');
}

/**
 * Every judgment failed (a 404 or 500 from the server, a wrong port that answers something else…;
 * a refused connection already stops the run): the package would be nothing but default-denies, so
 * the command fails with the first failure's reason, read from the run's model calls.
 */
async function everyJudgmentFailed(engine: EngineClient, repoId: string, runId: string, calls: number): Promise<AppError> {
  const { calls: [first] } = await engine.request('logs/list', { repoId, runId, errorsOnly: true, limit: 1, offset: 0 });
  const reason = first ? `${first.errorCode ?? 'error'}: ${first.preview}` : 'no reason logged';
  const code = first?.errorCode && (ERROR_CODES as readonly string[]).includes(first.errorCode) ? (first.errorCode as ErrorCode) : 'MODEL_ERROR';
  return new AppError(code, `Every judgment failed (${calls} of ${calls} model calls), so nothing could be judged and no package is printed. The first failure: ${reason}. Check the model server address (--base-url, OLLAMA_HOST or [models] base_url) and the model; \`cra logs --run ${runId} --errors\` lists the calls.`);
}

interface RetrieveOptions {
  repo: string;
  stages?: string;
  contextWindow?: number;
  reservedTokens?: number;
  budgetConfig?: string;
  model?: string;
  baseUrl?: string;
  format?: string;
  verbose?: boolean;
}

/**
 * The strict rules (docs/design.md, The retrieve command's rules) that are the command's own: a
 * stage list and one budget form must be given. The values themselves (stage names and order, the
 * budget's numbers) are the contract's to check (retrieval/run), once.
 */
function checkFlags(opts: RetrieveOptions, budgetFile: typeof Budget): { stages: RetrievalStageName[]; budget: BudgetInput; safetyMargin?: number } {
  if (opts.format !== undefined && opts.format !== 'json' && opts.format !== 'markdown') throw new AppError('VALIDATION', `--format must be json or markdown (got "${opts.format}").`);
  if (opts.stages === undefined) throw new AppError('VALIDATION', '--stages is required: name the stages to run, e.g. --stages scope,precision (allowed: routing, scope, similarity, precision, refilter).');
  // Split only: an unknown name is refused by the contract, naming the stages allowed.
  const stages = opts.stages.split(',').map((n) => n.trim()).filter(Boolean) as RetrievalStageName[];
  const pair = opts.contextWindow !== undefined || opts.reservedTokens !== undefined;
  if (opts.budgetConfig !== undefined && pair) throw new AppError('VALIDATION', '--budget-config cannot be combined with --context-window/--reserved-tokens: give one budget form.');
  if (opts.budgetConfig !== undefined) {
    const { contextWindow, reservedTokens, safetyMargin } = budgetFile.readBudgetConfigFile(opts.budgetConfig);
    return { stages, budget: { contextWindow, reservedTokens }, ...(safetyMargin !== undefined ? { safetyMargin } : {}) };
  }
  if (!pair) throw new AppError('VALIDATION', 'A budget is required: give --context-window N and --reserved-tokens M (the execute model\'s window and what it keeps back), or --budget-config FILE.');
  if (opts.contextWindow === undefined || opts.reservedTokens === undefined) throw new AppError('VALIDATION', `--context-window and --reserved-tokens go together: ${opts.contextWindow === undefined ? '--context-window' : '--reserved-tokens'} is missing.`);
  return { stages, budget: { contextWindow: opts.contextWindow, reservedTokens: opts.reservedTokens } };
}

/**
 * `cra retrieve`: one `retrieve` run with an explicit stage list and an explicit budget — task
 * analysis → the stages → context package — and the package printed: files with their tier and
 * reasons, symbols with their role and cost, the tokens used of the budget, what was dropped;
 * `--format json` prints {summary, package}, `--format markdown` the package as the execute
 * prompt's context; `-v` adds the budget, the stages and the server's token counts on stderr.
 */
export const registerRetrieve: CommandModule = (program, ctx) => {
  program
    .command('retrieve')
    .description('build the context package for a coding task: files and symbols by binary judgments, within a token budget, each with its reasons')
    .argument('<task>', 'the task, in words (name files or symbols when you know them)')
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--stages <csv>', 'required: the stages to run, in order (routing, scope, similarity, precision, refilter), e.g. scope,precision')
    .option('--context-window <tokens>', "the execute model's context window (with --reserved-tokens)", wholeNumber('context window', 1))
    .option('--reserved-tokens <tokens>', 'tokens kept back for the system prompt, task, retries and answer (with --context-window)', wholeNumber('number of reserved tokens', 0))
    .option('--budget-config <file>', 'a JSON or TOML file with context_window and reserved_tokens (instead of the two flags)')
    .option('--model <model>', 'the model of every retrieval stage (default: the config)')
    .option('--base-url <url>', 'the model server (default: the config)')
    .option('--format <format>', 'json: {summary, package}; markdown: the package as prompt context (default: a readable listing)')
    .option('-v, --verbose', 'also print the budget, the stages and the token counts (stderr)')
    .action(async (task: string, opts: RetrieveOptions) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (see context.ts)
      const budgetFile = require('../budgetFile') as typeof Budget;
      const { stages, budget, safetyMargin } = checkFlags(opts, budgetFile);
      const { engine, repo } = await openRepo(ctx, opts.repo, { config: true });
      let runId: string | undefined;
      const cancel = () => {
        if (runId) engine.cancel(runId);
      };
      process.once('SIGINT', cancel);
      try {
        ({ runId } = (await engine.request('retrieval/run', { repoId: repo.id, task, stages, budget, ...(safetyMargin !== undefined ? { safetyMargin } : {}), ...(opts.model ? { model: opts.model } : {}), ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}) })).run);
        // The run's product is its result: the package, its summary and markdown.
        const done = await engine.wait(runId, 'retrieve');
        const result = { pkg: done.package, summary: done.summary, markdown: done.markdown };
        const usage = result.summary.usage;
        if (usage && usage.calls > 0 && usage.failed === usage.calls) throw await everyJudgmentFailed(engine, repo.id, runId, usage.calls);
        for (const line of result.summary.info ?? []) process.stderr.write(`info: ${printable(line)}\n`);
        if (opts.verbose) process.stderr.write(verbose(result.summary));
        if (opts.format === 'json') process.stdout.write(`${JSON.stringify({ summary: result.summary, package: result.pkg })}\n`);
        else if (opts.format === 'markdown') process.stdout.write(printable(result.markdown, { multiline: true }));
        else process.stdout.write(describe(result.pkg, result.summary));
      } finally {
        process.removeListener('SIGINT', cancel);
        await engine.dispose();
      }
    });
};
