import { AppError, type Handlers } from '../../../shared/contract';
import type { EnrichSummary } from '../../../shared/contract/enrich';
import { openDatabase } from '../../platform/db/open';
import { enrichRepository, promoteEnrichment } from '../../knowledge/enrich/enrich';
import type { EngineContext } from '../engine';
import { readConfinedText } from '../../platform/fs/confine';
import { CURATED_MIGRATIONS } from '../../knowledge/kb/schema';
import { noServerHint } from '../../platform/llm/ollamaLifecycle';
import type { ModelServices } from '../../platform/llm/services';
import { RawCallLog } from '../../platform/logs/callLog';

/**
 * Enrichment as an `enrich` run (issue #13 item 11): every indexed file described by the model of
 * the enrich stage, stored in the repository's raw DB (resumable), and — with `promote` — copied
 * into the index's file_metadata, where scope tier 4 reads it through the KnowledgeBase.
 */
export function createEnrichHandlers(ctx: Pick<EngineContext, 'repos' | 'runs'>, llm: Pick<ModelServices, 'client' | 'router' | 'target'>): Pick<Handlers, 'enrich/run'> {
  return {
    'enrich/run': async ({ repoId, promote }) => {
      const info = ctx.repos.use(repoId, (repo) => repo.info);
      // Before a run starts: no model for the stage is CONFIG_MISSING (run `cra init`).
      llm.router().resolveStage('enrich');
      const { runId } = ctx.runs.start(
        'enrich',
        `Enrich · ${info.name}${promote ? ' (promote)' : ''}`,
        async ({ runId, signal, progress }): Promise<EnrichSummary> => {
          const repo = ctx.repos.openIndexed(info.id);
          const { kb, raw } = repo;
          try {
            // An indexed file may since have become a FIFO or a link out: skipped, not read.
            const readSource = (path: string) => readConfinedText(info.path, path);
            const summary = await enrichRepository({
              kb,
              raw,
              llm: llm.client,
              log: repo.table(RawCallLog),
              runId,
              readSource,
              signal,
              progress: (done, total, path) => progress({ phase: 'describing files', done, total, ...(path ? { message: path } : {}) }),
            }).catch((error: unknown) => {
              if (error instanceof AppError && error.code === 'OLLAMA_UNREACHABLE') {
                const t = llm.target();
                throw new AppError('OLLAMA_UNREACHABLE', noServerHint(t.address, t.source, t.provider), { retryable: true, cause: error });
              }
              throw error;
            });
            if (!promote) return summary;
            progress({ phase: 'promoting into the index', done: 0 });
            const curated = openDatabase(repo.paths.curated, { migrations: CURATED_MIGRATIONS });
            try {
              return { ...summary, promoted: promoteEnrichment(curated, raw) };
            } finally {
              curated.close();
            }
          } finally {
            repo.dispose();
          }
        },
        { repoId: info.id },
      );
      return ctx.runs.started(runId, 'enrich');
    },
  };
}
