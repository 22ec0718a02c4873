import { existsSync, statSync } from 'node:fs';
import { AppError, type Handlers, type RepoInfo } from '../../shared/contract';
import { openDatabase, type Db } from '../db/open';
import type { EngineContext } from '../engine';
import { RepoRegistry, repoPaths } from '../repos/registry';
import { embedRepository, type EmbedSummary } from '../search/embedRun';
import { searchWithMode, sharedDefaultEmbedder } from '../search/search';
import { embedderStatuses } from '../search/vectorStore';

type SearchHandlers = Pick<Handlers, 'search/query' | 'search/embed' | 'search/status'>;

/** What the search domain gives the composition root: its handlers, a way to start embedding, shutdown. */
export interface SearchDomain {
  handlers: SearchHandlers;
  /**
   * Start (or join) the background embedding run of a repository; returns its run id. The
   * indexing domain may call this after an index run finished, so vectors follow the index.
   */
  startEmbedding(repoId: string): string;
  dispose(): void;
}

/** Code search over indexed repositories and the incremental embedding job. */
export function createSearchDomain(ctx: EngineContext): SearchDomain {
  const readers = new ReaderCache();
  const embedding = new Map<string, string>();
  let registry: RepoRegistry | undefined;
  const repo = (repoId: string): RepoInfo => {
    registry ??= new RepoRegistry(ctx.ports.dataDir);
    const info = registry.get(repoId);
    if (!info) throw new AppError('NOT_FOUND', `No repository with id ${repoId}. Add it first (cra index <path>).`);
    return info;
  };
  const curatedOf = (info: RepoInfo): string => {
    const file = repoPaths(ctx.ports.dataDir, info.id).curated;
    if (!existsSync(file) || info.lastIndexedAt === null) {
      throw new AppError('NOT_INDEXED', `${info.path} is not indexed yet; run \`cra index ${info.path}\` (or wait for its first index to finish).`);
    }
    return file;
  };
  const stopListening = ctx.events.on('repos/removed', ({ repoId }) => readers.drop(repoId));

  const startEmbedding = (repoId: string): string => {
    const running = embedding.get(repoId);
    if (running && ctx.runs.list(false).some((r) => r.runId === running)) return running;
    const info = repo(repoId);
    const file = curatedOf(info);
    const { runId, done } = ctx.runs.start('embed', `Embedding ${info.name}`, async ({ signal, progress }): Promise<EmbedSummary> => {
      const db = openDatabase(file, { withVectors: true });
      try {
        return await embedRepository(db, sharedDefaultEmbedder(), { signal, progress });
      } finally {
        db.close();
      }
    });
    embedding.set(repoId, runId);
    done.then(
      () => embedding.delete(repoId),
      () => embedding.delete(repoId),
    );
    return runId;
  };

  const handlers: SearchHandlers = {
    'search/query': async ({ repoId, query, limit, mode }) => {
      const started = performance.now();
      const db = readers.get(repoId, curatedOf(repo(repoId)));
      const outcome = await searchWithMode(db, query, { limit, mode });
      return { ...outcome, tookMs: Math.round((performance.now() - started) * 10) / 10 };
    },
    'search/embed': async ({ repoId }) => ({ runId: startEmbedding(repoId) }),
    'search/status': async ({ repoId }) => {
      const db = readers.get(repoId, curatedOf(repo(repoId)));
      const chunks = db.prepare('select count(*) from chunks').pluck().get() as number;
      return { repoId, chunks, embedders: embedderStatuses(db) };
    },
  };

  return {
    handlers,
    startEmbedding,
    dispose() {
      stopListening();
      readers.closeAll();
      registry?.close();
    },
  };
}

/**
 * Read-only connections to curated databases, one per repository, reopened when the file was
 * replaced (a rebuilt or removed index): opening and preparing per query would cost more than
 * the query itself.
 */
class ReaderCache {
  private readonly open = new Map<string, { db: Db; file: string; ino: number }>();

  get(repoId: string, file: string): Db {
    const ino = statSync(file).ino;
    const cached = this.open.get(repoId);
    if (cached && cached.file === file && cached.ino === ino) return cached.db;
    cached?.db.close();
    const db = openDatabase(file, { readOnly: true, withVectors: true });
    this.open.set(repoId, { db, file, ino });
    return db;
  }

  drop(repoId: string): void {
    this.open.get(repoId)?.db.close();
    this.open.delete(repoId);
  }

  closeAll(): void {
    for (const id of [...this.open.keys()]) this.drop(id);
  }
}
