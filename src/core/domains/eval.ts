import type { Handlers } from '../../shared/contract';
import type { EngineContext } from '../engine';
import { evaluateRepository } from '../eval/evaluate';
import { repositoryRoot } from '../git';
import { productRetrieval } from '../eval/product';
import { listReports, loadReport } from '../eval/reports';

type EvalHandlers = Pick<Handlers, 'eval/list' | 'eval/get' | 'eval/start'>;

/** Retrieval-quality evaluation: stored reports and new runs (one `eval` job per run). */
export function createEvalHandlers(ctx: EngineContext): EvalHandlers {
  const dataDir = ctx.ports.dataDir;
  return {
    'eval/list': async () => listReports(dataDir),
    'eval/get': async ({ id }) => loadReport(dataDir, id),
    'eval/start': async ({ repoPath, commits, since, ks }) => {
      // Validate the path before starting, so a typo fails the request, not a background job.
      const root = await repositoryRoot(repoPath);
      const { runId } = ctx.runs.start('eval', `Evaluate ${root}`, async ({ signal, progress }) => {
        const { report, file } = await evaluateRepository({
          dataDir,
          repoPath: root,
          commits,
          since,
          ks,
          retrieval: productRetrieval(),
          signal,
          onProgress: (p) => progress({ phase: p.phase, done: p.done, total: p.total || undefined, message: p.message }),
        });
        return { reportId: report.id, file };
      });
      return { runId };
    },
  };
}
