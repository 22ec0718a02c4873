import { statSync } from 'node:fs';
import type { Handlers } from '../../shared/contract';
import { openRawDatabase } from '../db/raw';
import type { EngineContext } from '../engine';
import { KnowledgeBase } from '../kb/knowledgeBase';
import type { ModelServices } from '../llm/services';
import { RawCallLog } from '../logs/callLog';
import { openIndexedRepo } from '../repos/indexed';
import type { Embedder } from '../search/embedder';
import { buildSummaries } from '../summaries/build';
import { SummaryStore } from '../summaries/store';
import { repoPaths, summariesFile } from '../layout';

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
export function createSummariesDomain(ctx: EngineContext, llm: Pick<ModelServices, 'client' | 'loadUserConfig'>, embedder: () => Embedder): SummariesDomain {
  const going = new Map<string, string>();
  const automatic = (): boolean => {
    try {
      return llm.loadUserConfig().values.models?.overrides.summarize !== undefined;
    } catch {
      return false;
    }
  };
  const start = (repoId: string): string => {
    const { info, curatedFile } = openIndexedRepo(ctx, { repoId });
    const running = going.get(info.id);
    if (running) return running;
    const { runId, done } = ctx.runs.start(
      'summarize',
      `Summaries · ${info.name}`,
      async ({ runId, signal, progress }) => {
        const kb = KnowledgeBase.open(curatedFile, info.id, { withVectors: true });
        const paths = repoPaths(ctx.ports.dataDir, info.id);
        const store = SummaryStore.open(summariesFile(paths.dir));
        const raw = openRawDatabase(paths.raw);
        try {
          return await buildSummaries({ kb, store, embedder: embedder(), complete: (p, o) => llm.client.complete(p, o), runId, log: new RawCallLog(raw), signal, onProgress: (p) => progress(p) });
        } finally {
          raw.close();
          store.close();
          kb.close();
        }
      },
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
      'summaries/build': async ({ repoId }) => ({ runId: start(repoId) }),
      'summaries/status': async ({ repoId }) => {
        const { info } = openIndexedRepo(ctx, { repoId });
        const file = summariesFile(repoPaths(ctx.ports.dataDir, info.id).dir);
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
