import { statSync } from 'node:fs';
import type { Handlers } from '../../../shared/contract';
import type { EngineContext } from '../engine';
import type { ModelServices } from '../../platform/llm/services';
import { RawCallLog } from '../../platform/logs/callLog';
import type { Embedder } from '../../knowledge/search/embedder';
import { buildSummaries } from '../../knowledge/summaries/build';
import { SummaryStore } from '../../knowledge/summaries/store';

type SummariesHandlers = Pick<Handlers, 'summaries/build' | 'summaries/status'>;

/** The summaries domain: handlers, and the automatic build after embedding. */
export interface SummariesDomain {
  handlers: SummariesHandlers;
  dispose(): void;
}

/**
 * Hierarchical summaries (issue #14, RAPTOR): `summaries/build` starts a `summarize` run; after
 * every successful embedding run a build starts by itself when a model is assigned to the
 * summarize stage (`[models.overrides] summarize`), so the tree follows the index. A repository
 * without vectors or summaries is simply without them: chat skips absent summaries.
 */
export function createSummariesDomain(ctx: Pick<EngineContext, 'repos' | 'runs' | 'events'>, llm: Pick<ModelServices, 'client' | 'loadUserConfig'>, embedder: () => Embedder): SummariesDomain {
  const going = new Map<string, string>();
  const automatic = (): boolean => {
    try {
      return llm.loadUserConfig().values.models?.overrides.summarize !== undefined;
    } catch {
      return false;
    }
  };
  const start = (repoId: string): string => {
    const info = ctx.repos.use(repoId, (repo) => repo.info);
    const running = going.get(info.id);
    if (running) return running;
    const { runId, done } = ctx.runs.start(
      'summarize',
      `Summaries · ${info.name}`,
      async ({ runId, signal, progress }) =>
        ctx.repos.use(info.id, async (repo) => {
          const store = SummaryStore.open(repo.paths.summaries);
          try {
            return await buildSummaries({ kb: repo.kb, store, embedder: embedder(), complete: (p, o) => llm.client.complete(p, o), runId, log: repo.table(RawCallLog), signal, onProgress: (p) => progress(p) });
          } finally {
            store.close();
          }
        }),
      { repoId: info.id },
    );
    going.set(info.id, runId);
    void done.finally(() => going.delete(info.id)).catch(() => undefined);
    return runId;
  };
  const stop = ctx.events.on('run/finished', (finished) => {
    if (finished.kind !== 'embed' || finished.status !== 'done' || !automatic()) return;
    const repoId = ctx.runs.list(true).find((r) => r.runId === finished.runId)?.subject;
    if (repoId && 'repoId' in repoId) {
      try {
        start(repoId.repoId);
      } catch {
        // The repository went away meanwhile: nothing to summarise.
      }
    }
  });
  return {
    handlers: {
      'summaries/build': async ({ repoId }) => ctx.runs.started(start(repoId), 'summarize'),
      'summaries/status': async ({ repoId }) => {
        const { info, paths } = ctx.repos.use(repoId, (repo) => ({ info: repo.info, paths: repo.paths }));
        const file = paths.summaries;
        let builtAt: string | null = null;
        try {
          builtAt = statSync(file).mtime.toISOString();
        } catch {
          return { repoId: info.id, levels: [], embedderId: null, builtAt: null, automatic: automatic() };
        }
        const store = SummaryStore.open(file);
        try {
          return { repoId: info.id, levels: store.levels(), embedderId: store.embedderId(), builtAt, automatic: automatic() };
        } finally {
          store.close();
        }
      },
    },
    dispose: stop,
  };
}
