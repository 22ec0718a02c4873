import { isAbsolute } from 'node:path';
import { AppError, type Handlers } from '../../shared/contract';
import type { EngineContext } from '../engine';
import { DEFAULT_COMMITS, evaluateRepository } from '../eval/evaluate';
import { repositoryRoot } from '../git';
import { productRetrieval } from '../eval/product';
import { listReports, loadReport } from '../eval/reports';
import { expandHome } from '../repos/service';

/** A path typed into the app: `~` expanded; a relative one refused (the engine's folder means nothing there). */
function appPath(input: string): string {
  const expanded = expandHome(input.trim());
  if (!isAbsolute(expanded)) throw new AppError('VALIDATION', `"${input}" is a relative path; give the repository's absolute path (for example /home/you/project or ~/project).`);
  return expanded;
}

type EvalHandlers = Pick<Handlers, 'eval/list' | 'eval/get' | 'eval/start'>;

/** Retrieval-quality evaluation: stored reports and new runs (one `eval` job per run). */
export function createEvalHandlers(ctx: Pick<EngineContext, 'policy' | 'ports' | 'runs'>): EvalHandlers {
  const dataDir = ctx.ports.dataDir;
  const isApp = ctx.policy.pathsFromForms;
  return {
    'eval/list': async () => listReports(dataDir),
    'eval/get': async ({ id }) => loadReport(dataDir, id),
    'eval/start': async ({ repoPath, commits, since, ks }) => {
      // Validate the path before starting, so a typo fails the request, not a background job.
      // The app's field is held to what Repositories → Add accepts: `~`, and no relative path.
      const root = await repositoryRoot(isApp ? appPath(repoPath) : repoPath);
      // The title says what runs, so a page opened later shows it instead of its blank form.
      const scope = since ? `${commits ?? DEFAULT_COMMITS} commits since ${since}` : `${commits ?? DEFAULT_COMMITS} commits`;
      const { runId } = ctx.runs.start('eval', `Evaluate ${root} · ${scope}`, async ({ signal, progress }) => {
        const { report, file } = await evaluateRepository({
          dataDir,
          repoPath: root,
          commits,
          since,
          ks,
          retrieval: productRetrieval(),
          signal,
          via: ctx.policy.evalVia,
          onProgress: (p) => progress({ phase: p.phase, done: p.done, total: p.total || undefined, message: p.message }),
        });
        return { reportId: report.id, file };
      }, { repoPath: root });
      return { runId };
    },
  };
}
