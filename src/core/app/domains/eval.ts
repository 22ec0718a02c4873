import { isAbsolute } from 'node:path';
import { AppError, type EvalSearchMode, type Handlers } from '../../../shared/contract';
import type { EngineContext } from '../engine';
import { DEFAULT_COMMITS, evaluateRepository } from '../../lab/eval/evaluate';
import { repositoryRoot } from '../../platform/git';
import { pipelineEvalOptions } from '../../lab/eval/pipelineSetup';
import { productRetrieval } from '../../lab/eval/product';
import { listReports, loadReport } from '../../lab/eval/reports';
import { expandHome } from '../../knowledge/repos/service';
import type { Embedder } from '../../knowledge/search/embedder';

/** The chat route `chatEvidence` takes for each search mode (chosen, so no router call). */
const CHAT_ROUTE_OF_MODE = { keyword: 'bm25', hybrid: 'hybrid', semantic: 'semantic' } as const satisfies Record<EvalSearchMode, string>;

/** A path typed into the app: `~` expanded; a relative one refused (the engine's folder means nothing there). */
function appPath(input: string): string {
  const expanded = expandHome(input.trim());
  if (!isAbsolute(expanded)) throw new AppError('VALIDATION', `"${input}" is a relative path; give the repository's absolute path (for example /home/you/project or ~/project).`);
  return expanded;
}

type EvalHandlers = Pick<Handlers, 'eval/list' | 'eval/get' | 'eval/start'>;

/** Retrieval-quality evaluation: stored reports and new runs (one `eval` job per run). */
export function createEvalHandlers(ctx: Pick<EngineContext, 'policy' | 'ports' | 'runs'>, embedder: Embedder): EvalHandlers {
  const dataDir = ctx.ports.dataDir;
  const isApp = ctx.policy.pathsFromForms;
  return {
    'eval/list': async () => listReports(dataDir),
    'eval/get': async ({ id }) => loadReport(dataDir, id),
    'eval/start': async ({ repoPath, commits, since, ks, tasksFile, mode = 'keyword', pipeline: pipelineInput, chatEvidence }) => {
      // Validate the path before starting, so a typo fails the request, not a background job.
      // The app's field is held to what Repositories → Add accepts: `~`, and no relative path.
      const root = await repositoryRoot(isApp ? appPath(repoPath) : repoPath);
      if (tasksFile !== undefined && !isAbsolute(tasksFile)) throw new AppError('VALIDATION', `"${tasksFile}" is a relative path; give the tasks file's absolute path.`);
      // The model judge resolves its model and the budget is checked now, so a missing [models]
      // or a budget that leaves nothing fails the request rather than the run.
      const pipeline = pipelineInput ? pipelineEvalOptions(dataDir, pipelineInput) : undefined;
      // The title says what runs, so a page opened later shows it instead of its blank form.
      const scope = tasksFile ? `tasks of ${tasksFile}` : since ? `${commits ?? DEFAULT_COMMITS} commits since ${since}` : `${commits ?? DEFAULT_COMMITS} commits`;
      const { runId } = ctx.runs.start('eval', `Evaluate ${root} · ${scope}`, async ({ signal, progress }) => {
        const { report, file } = await evaluateRepository({
          dataDir,
          repoPath: root,
          commits,
          since,
          tasksFile,
          ks,
          ...(pipeline ? { pipeline } : {}),
          ...(chatEvidence ? { chatEvidence: { mode: CHAT_ROUTE_OF_MODE[mode], embedder } } : {}),
          retrieval: productRetrieval({ mode }),
          signal,
          via: ctx.policy.evalVia,
          onProgress: (p) => progress({ phase: p.phase, done: p.done, total: p.total || undefined, message: p.message }),
        });
        return { reportId: report.id, file };
      }, { repoPath: root });
      return ctx.runs.started(runId, 'eval');
    },
  };
}
