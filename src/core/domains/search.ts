import type { Handlers } from '../../shared/contract';
import type { SearchMode } from '../../shared/contract/search';
import { defaultConfigValues, loadUserConfigCached } from '../config';
import type { EngineContext } from '../engine';
import { openIndexedRepo } from '../repos/indexed';
import { coverageNote } from '../search/coverage';
import { embeddingSwitch, EmbedScheduler } from '../search/embedScheduler';
import { searchWithMode } from '../search/search';
import { KbReaders } from '../kb/readers';
import { createBackgroundEmbedder, type BackgroundEmbedder } from '../search/workerEmbedder';

type SearchHandlers = Pick<Handlers, 'search/query' | 'search/embed' | 'search/status'>;

/** What the search domain gives the composition root: its handlers, a way to start embedding, shutdown. */
export interface SearchDomain {
  handlers: SearchHandlers;
  /** Start (or join) the background embedding run of a repository; returns its run id. */
  startEmbedding(repoId: string): string;
  /** The settings changed (config/set): apply the embeddings switch now, without a restart. */
  settingsChanged(): void;
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
 * runs in one worker thread per engine (started on first use, stopped by `dispose`); query
 * vectors come from the same worker.
 */
export function createSearchDomain(ctx: EngineContext, options: SearchDomainOptions = {}): SearchDomain {
  const readers = new KbReaders();
  let embedder: BackgroundEmbedder | undefined;
  const getEmbedder = (): BackgroundEmbedder => (embedder ??= createBackgroundEmbedder());
  // NOT_FOUND / NOT_INDEXED are decided by openIndexedRepo, as for the repository service and the CLI.
  const curatedOf = (repoId: string): string => openIndexedRepo(ctx, { repoId }).curatedFile;
  const stopListening = ctx.events.on('repos/removed', ({ repoId }) => readers.drop(repoId));

  const reposNow = () => ctx.registry.list();
  const scheduler = new EmbedScheduler({
    ctx,
    embedder: getEmbedder,
    resolve: (repoId) => {
      const { info, curatedFile } = openIndexedRepo(ctx, { repoId });
      return { info, file: curatedFile };
    },
    list: reposNow,
    enabled: () => options.autoEmbed ?? embeddingSwitch(ctx.ports.dataDir),
  });
  const appHost = ctx.ports.host === 'electron' || ctx.ports.host === 'serve';
  // The app hosts always follow the index; whether a run starts is decided by the switch at the time.
  const follow = options.autoEmbed ?? appHost;
  const stopFollowing = follow ? scheduler.follow(reposNow()) : () => undefined;
  const startEmbedding = (repoId: string): string => scheduler.start(repoId);

  const handlers: SearchHandlers = {
    'search/query': async ({ repoId, query, limit, mode }) => {
      const started = performance.now();
      const configured = configuredRetrieval(ctx.ports.dataDir);
      const requested = mode === 'auto' ? configured.mode : mode;
      // Leased: a semantic search awaits the query vector, and the index may be replaced meanwhile.
      const reader = readers.lease(repoId, curatedOf(repoId));
      const outcome = await searchWithMode(reader.kb, query, { limit: limit ?? configured.top_k, mode: requested, embedder: getEmbedder() }).finally(reader.release);
      const note = coverageNote(requested === 'auto' ? 'keyword' : requested, outcome.mode, outcome.vectorCoverage, scheduler.isRunning(repoId));
      return { ...outcome, tookMs: Math.round((performance.now() - started) * 10) / 10, ...(note ? { note } : {}) };
    },
    'search/embed': async ({ repoId }) => ctx.runs.started(startEmbedding(repoId), 'embed'),
    'search/status': async ({ repoId }) => {
      const kb = readers.get(repoId, curatedOf(repoId));
      return { repoId, chunks: kb.searchIndex.chunkCount(), embedders: kb.embedders(), defaultEmbedderId: getEmbedder().id, autoEmbed: scheduler.autoEmbedding, embedding: scheduler.isRunning(repoId) };
    },
  };

  return {
    handlers,
    startEmbedding,
    settingsChanged: () => scheduler.settingsChanged(),
    async dispose() {
      stopListening();
      stopFollowing();
      await scheduler.dispose();
      await embedder?.dispose();
      readers.closeAll();
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
