import { nodeCrypto } from '../../platform/nodeModules';
import type { EmbedSummary, RunProgress } from '../../../shared/contract';
import type { Db } from '../../platform/db/open';
import { throwIfAborted } from '../../platform/runtime/runs';
import type { Embedder } from './embedder';
import { KnowledgeBase } from '../kb/knowledgeBase';
import { chunkEmbeddingText } from './embedText';
import { VectorStore } from './vectorStore';

/** What one embedding run did (the contract owns the type: it is the `embed` run's result). */
export type { EmbedSummary } from '../../../shared/contract';

/** Options of {@link embedRepository}. */
export interface EmbedRunOptions {
  signal?: AbortSignal;
  progress?: (update: Omit<RunProgress, 'runId' | 'kind'>) => void;
  /** Chunks per write transaction (also the progress step). */
  batchSize?: number;
  /** Embed at most this many chunks in this run (benchmarks, trial runs); the rest stay pending. */
  maxChunks?: number;
}

const BUSY_RETRIES = 30;

/**
 * Bring the vectors of one embedder up to date with the chunks of a curated database: chunks with
 * no vector (or one made from another text) get the vector of a deleted chunk with the same text
 * when there is one, else are embedded; vectors of deleted chunks are dropped. Each batch is
 * committed on its own, so a cancelled run keeps what it finished and the next run continues.
 */
export async function embedRepository(db: Db, embedder: Embedder, options: EmbedRunOptions = {}): Promise<EmbedSummary> {
  const started = Date.now();
  const store = await withBusyRetry(() => VectorStore.open(db, embedder.id, embedder.dimensions), options.signal);
  const needed = await pendingChunks(db, store, options.signal);
  // Vectors of deleted chunks with the same text are read before the orphans are dropped.
  const retired = store.retiredVectors(new Set(needed.map((c) => c.hash)));
  const removed = await withBusyRetry(() => store.removeOrphans(), options.signal);
  const reusable = needed.filter((c) => retired.has(c.hash));
  if (reusable.length > 0) await withBusyRetry(() => store.upsert(reusable.map((c) => ({ chunkId: c.id, hash: c.hash, vector: retired.get(c.hash)! }))), options.signal);
  const pending = needed.filter((c) => !retired.has(c.hash)).slice(0, options.maxChunks ?? Number.POSITIVE_INFINITY);
  const chunks = KnowledgeBase.of(db).searchIndex.chunkCount();
  const batchSize = options.batchSize ?? 32;
  let done = 0;
  options.progress?.({ phase: 'embeddings', done, total: pending.length, message: `${pending.length} of ${chunks} chunks need vectors` });
  for (let i = 0; i < pending.length; i += batchSize) {
    throwIfAborted(options.signal);
    const batch = pending.slice(i, i + batchSize);
    const vectors = await embedder.embed(
      batch.map((c) => c.text),
      options.signal,
    );
    const items = batch.map((c, j) => ({ chunkId: c.id, hash: c.hash, vector: vectors[j]! }));
    await withBusyRetry(() => store.upsert(items), options.signal);
    done += batch.length;
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : undefined;
    options.progress?.({ phase: 'embeddings', done, total: pending.length, rate, etaSeconds: rate ? Math.round((pending.length - done) / rate) : undefined });
  }
  return { embedderId: embedder.id, chunks, embedded: done, reused: reusable.length, removed, durationMs: Date.now() - started };
}

/** Chunks read per page while looking for pending ones (the thread yields between pages). */
const PENDING_PAGE = 250;

/**
 * Chunks whose embedding text has no vector yet, or a vector made from another text. Reads the
 * chunks page by page and yields to the event loop between pages, so a large index does not block
 * the engine's thread for the whole scan.
 */
export async function pendingChunks(db: Db, store: VectorStore, signal?: AbortSignal): Promise<Array<{ id: number; hash: string; text: string }>> {
  const known = store.embeddedHashes();
  const pending: Array<{ id: number; hash: string; text: string }> = [];
  const index = KnowledgeBase.of(db).searchIndex;
  for (let after = 0; ; ) {
    throwIfAborted(signal);
    const rows = index.chunksForEmbedding(after, PENDING_PAGE);
    for (const row of rows) {
      const text = chunkEmbeddingText(row);
      const hash = nodeCrypto().createHash('sha1').update(text).digest('hex').slice(0, 16);
      if (known.get(row.id) !== hash) pending.push({ id: row.id, hash, text });
    }
    if (rows.length < PENDING_PAGE) return pending;
    after = rows[rows.length - 1]!.id;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Retry a write while another connection (the indexer) holds the write lock. */
async function withBusyRetry<T>(write: () => T, signal?: AbortSignal): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(signal);
    try {
      return write();
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') || attempt >= BUSY_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
