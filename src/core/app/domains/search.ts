import type { Handlers } from '../../../shared/contract';
import type { SearchMode } from '../../../shared/contract/search';
import { defaultConfigValues, loadUserConfigCached } from '../../platform/config';
import type { EngineContext } from '../engine';
import { coverageNote } from '../../knowledge/search/coverage';
import { embeddingSwitch, EmbedScheduler } from '../../knowledge/search/embedScheduler';
import { searchWithMode } from '../../knowledge/search/search';
import type { BackgroundEmbedder } from '../../knowledge/search/workerEmbedder';

type SearchHandlers = Pick<Handlers, 'search/query' | 'search/embed' | 'search/status'>;

/** What the search domain gives the composition root: its handlers, a way to start embedding, shutdown. */
export interface SearchDomain {
  handlers: SearchHandlers;
  /** Start (or join) the background embedding run of a repository; returns its run id. */
  startEmbedding(repoId: string): string;
  /** Cancel embedding runs, stop the embedding worker and close connections. */
  dispose(): Promise<void>;
}

/** Options of {@link createSearchDomain}. */
export interface SearchDomainOptions {
  /**
   * Embed each repository by itself after every successful index. Default: in the app hosts
   * (`electron`, `serve`) the switch as it is at each decision (CRA_EMBEDDINGS, else
   * `[retrieval] embeddings`, else off), never for `cli` and `test`. A boolean fixes it.
   */
  autoEmbed?: boolean;
}

/**
 * Code search over indexed repositories and the incremental embedding job. The embedded model
 * is the engine's one embedder (`createCore`: a worker thread started on first use, stopped at
 * shutdown); query vectors come from the same worker.
 */
export function createSearchDomain(ctx: Pick<EngineContext, 'repos' | 'registry' | 'runs' | 'events' | 'ports' | 'policy'>, embedder: BackgroundEmbedder, options: SearchDomainOptions = {}): SearchDomain {
  const getEmbedder = (): BackgroundEmbedder => embedder;
  const reposNow = () => ctx.registry.list();
  const scheduler = new EmbedScheduler({
    ctx,
    embedder: getEmbedder,
    // NOT_FOUND / NOT_INDEXED as the repository handles decide them, as for every handler and the CLI.
    resolve: (repoId) => ctx.repos.use(repoId, (repo) => ({ info: repo.info, file: repo.paths.curated })),
    list: reposNow,
    enabled: () => options.autoEmbed ?? embeddingSwitch(ctx.ports.dataDir),
  });
  // The app hosts always follow the index; whether a run starts is decided by the switch at the time.
  const follow = options.autoEmbed ?? ctx.policy.embedAfterIndex;
  const stopFollowing = follow ? scheduler.follow(reposNow()) : () => undefined;
  // A changed embeddings switch applies at once, without a restart (docs/search.md).
  const stopConfig = ctx.events.on('config/changed', () => scheduler.settingsChanged());
  const startEmbedding = (repoId: string): string => scheduler.start(repoId);

  const handlers: SearchHandlers = {
    'search/query': async ({ repoId, query, limit, mode }) => {
      const started = performance.now();
      const configured = configuredRetrieval(ctx.ports.dataDir);
      const requested = mode === 'auto' ? configured.mode : mode;
      // Held until the search ends: a semantic search awaits the query vector, and the index may be replaced meanwhile.
      const outcome = await ctx.repos.use(repoId, (repo) => searchWithMode(repo.kb, query, { limit: limit ?? configured.top_k, mode: requested, embedder: getEmbedder() }));
      const note = coverageNote(requested === 'auto' ? 'keyword' : requested, outcome.mode, outcome.vectorCoverage, scheduler.isRunning(repoId));
      return { ...outcome, tookMs: Math.round((performance.now() - started) * 10) / 10, ...(note ? { note } : {}) };
    },
    'search/embed': async ({ repoId }) => ctx.runs.started(startEmbedding(repoId), 'embed'),
    'search/status': async ({ repoId }) => {
      const { chunks, embedders } = ctx.repos.use(repoId, ({ kb }) => ({ chunks: kb.searchIndex.chunkCount(), embedders: kb.embedders() }));
      return { repoId, chunks, embedders, defaultEmbedderId: getEmbedder().id, autoEmbed: scheduler.autoEmbedding, embedding: scheduler.isRunning(repoId) };
    },
  };

  return {
    handlers,
    startEmbedding,
    async dispose() {
      stopFollowing();
      stopConfig();
      await scheduler.dispose();
    },
  };
}

/**
 * `[retrieval]` of the user config: what an `auto` request means here and how many files a request
 * without a limit gets (the defaults when the file is invalid: search keeps working).
 */
function configuredRetrieval(dataDir: string): { mode: SearchMode; top_k: number } {
  try {
    return loadUserConfigCached(dataDir).values.retrieval;
  } catch {
    return defaultConfigValues().retrieval;
  }
}
