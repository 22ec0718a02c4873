import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EngineClient } from '../../../core/app/contract/client';
import type { ModelCallSummary, RepoInfo } from '../../../shared/contract';
import { AppError } from '../../../shared/contract/errors';
import { printable } from '../../../shared/printable';
import type { CliContext, CommandModule } from '../context';

interface LogsOptions {
  run?: string;
  stage?: string;
  model?: string;
  repo?: string;
  errors?: boolean;
  limit: number;
  id?: number;
  json?: boolean;
}

/** A log to read: a repository's (its raw DB) or the user-level one (`repo` undefined). */
interface LogSource {
  repo?: RepoInfo;
}

/**
 * Which logs `cra logs` reads: `--repo` a folder (in or under a registered repository) or a
 * repository id; without it, the repository the working folder is in, else every log (the
 * user-level one and each repository's). Asked of the engine (repos/list, repos/resolve).
 */
async function logSources(ctx: CliContext, engine: EngineClient, flag: string | undefined): Promise<{ sources: LogSource[]; named: boolean }> {
  const repos = await engine.request('repos/list', {});
  const enclosing = (folder: string) =>
    engine.request('repos/resolve', { path: folder }).catch((error: unknown) => {
      if (error instanceof AppError && (error.code === 'NOT_INDEXED' || error.code === 'NOT_FOUND')) return undefined;
      throw error;
    });
  if (flag !== undefined) {
    if (repos.length === 0) throw new AppError('NOT_FOUND', `No repository ${flag}: none is registered in ${ctx.dataDir()} yet (cra index <path> adds one).`);
    const folder = resolve(flag);
    const repo = existsSync(folder) ? await enclosing(folder) : repos.find((r) => r.id === flag);
    if (!repo) throw new AppError('NOT_FOUND', existsSync(folder) ? `${folder} is not in a registered repository; cra index ${folder} adds it.` : `No folder ${folder} and no repository with id ${flag}; give a repository's folder (or its id).`);
    return { sources: [{ repo }], named: true };
  }
  const here = repos.length > 0 ? await enclosing(process.cwd()) : undefined;
  if (here) return { sources: [{ repo: here }], named: true };
  return { sources: [{}, ...repos.map((repo) => ({ repo }))], named: false };
}

/** A repository that has logged nothing yet has no raw DB: its log reads as empty, not as an error. */
function noCallsYet(error: unknown): boolean {
  return error instanceof AppError && error.code === 'NOT_FOUND' && /has no model calls yet/.test(error.message);
}

/** One line of the listing; `from` names the log when several are merged. */
function callLine(c: ModelCallSummary, from?: string): string {
  const tokens = `${c.promptTokens ?? '-'}→${c.completionTokens ?? '-'} tok`;
  const pYes = c.pYes !== undefined ? `  P(yes) ${c.pYes.toFixed(2)}` : '';
  const state = c.errorCode ? `ERROR ${c.errorCode}` : c.preview.slice(0, 60);
  return printable(`#${c.id}  ${from ? `${from}  ` : ''}${c.createdAt}  ${c.runId ?? '-'}  ${c.stage ?? '-'}  ${c.model}  ${tokens}  ${c.latencyMs ?? '-'} ms${pYes}  ${state}`);
}

/** `cra logs`: the model call audit log. */
export const registerLogs: CommandModule = (program, ctx) => {
  program
    .command('logs')
    .description('model calls, newest first: time, run, stage, model, tokens, latency, P(yes) of judgments, first words')
    .option('--run <id>', 'only calls of this run (a solve run: the calls of all its passes)')
    .option('--stage <stage>', 'only calls of this stage')
    .option('--model <model>', 'only calls to this model')
    .option('--repo <path>', "a repository's log, by its folder (or id); default: the repository you are in, else every log")
    .option('--errors', 'only failed calls')
    .option('--limit <n>', 'how many', (v) => Number(v), 50)
    .option('--id <n>', 'print one call whole', (v) => Number(v))
    .option('--json', 'print JSON')
    .action(async (opts: LogsOptions) => {
      const engine = ctx.client();
      try {
        const { sources, named } = await logSources(ctx, engine, opts.repo);
        if (opts.id !== undefined) {
          const source = named ? sources[0]! : {};
          const call = await engine.request('logs/get', { ...(source.repo ? { repoId: source.repo.id } : {}), id: opts.id }).catch((error: unknown) => {
            throw noCallsYet(error) ? new AppError('NOT_FOUND', `${source.repo?.path ?? 'This repository'} has no model calls yet.`) : error;
          });
          process.stdout.write(opts.json ? `${JSON.stringify(call, null, 2)}\n` : printable(`#${call.id} ${call.createdAt} ${call.model} ${call.stage ?? ''}${call.pYes !== undefined ? ` P(yes) ${call.pYes.toFixed(2)}` : ''}\n--- system\n${call.system ?? ''}\n--- prompt\n${call.prompt}\n--- response\n${call.response ?? call.error ?? ''}\n--- params\n${JSON.stringify(call.params)}\n`, { multiline: true }));
          return;
        }
        const limit = Math.min(Math.max(1, opts.limit || 50), 500);
        const pages = [];
        for (const s of sources) {
          const page = await engine.request('logs/list', { ...(s.repo ? { repoId: s.repo.id } : {}), runId: opts.run, stage: opts.stage, model: opts.model, errorsOnly: Boolean(opts.errors), limit, offset: 0 }).catch((error: unknown) => {
            if (noCallsYet(error)) return undefined;
            throw error;
          });
          if (!page) continue;
          pages.push({ page, from: s.repo?.name ?? 'app' });
        }
        // Several logs: merged newest first, each line naming its log (ids are per log: --repo and --id read one).
        const merged = pages.flatMap(({ page, from }) => page.calls.map((call) => ({ call, from }))).sort((a, b) => b.call.createdAt.localeCompare(a.call.createdAt)).slice(0, limit);
        const total = pages.reduce((n, p) => n + p.page.total, 0);
        const run = pages.find((p) => p.page.run)?.page.run;
        if (opts.json) return void process.stdout.write(`${JSON.stringify(pages.length === 1 ? pages[0]!.page : { total, calls: merged.map(({ call, from }) => ({ ...call, log: from })), ...(run ? { run } : {}) }, null, 2)}\n`);
        if (run) process.stdout.write(`${printable(`run ${run.runId}  ${run.kind}  ${run.title ?? ''}  ${run.status}  ${run.startedAt} → ${run.finishedAt ?? '…'}${run.error ? `  ${run.error.code}: ${run.error.message}` : ''}`)}\n`);
        if (merged.length === 0) {
          const where = named ? `the log of ${sources[0]!.repo!.path}` : 'any log';
          return void process.stdout.write(`No model calls in ${printable(where)}${opts.run || opts.stage || opts.model || opts.errors ? ' match the filters' : ' yet'}.\n`);
        }
        for (const { call, from } of merged) process.stdout.write(`${callLine(call, pages.length > 1 ? from : undefined)}\n`);
        process.stdout.write(`${merged.length} of ${total} calls${pages.length > 1 ? ` (${pages.length} logs)` : named ? ` (the log of ${printable(sources[0]!.repo!.path)})` : ''}\n`);
      } finally {
        await engine.dispose();
      }
    });
};
