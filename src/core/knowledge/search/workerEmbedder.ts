import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { workerThreads } from '../../platform/nodeModules';
import type { Worker } from 'node:worker_threads';
import { AppError, deserializeError, type ErrorCode } from '../../../shared/contract';
import { throwIfAborted } from '../../platform/runtime/runs';
import { createEmbedder, DEFAULT_EMBEDDER_ID, loadUseModel, type EmbedBatch, type Embedder } from './embedder';
import type { EmbedWorkerReply, EmbedWorkerRequest } from './embedWorker';

/** How to start the worker: a script file, or (from the TypeScript sources) a bootstrap evaluated as code. */
export interface WorkerEntry {
  script: string;
  eval: boolean;
}

/**
 * Where the embedding worker's script is: `embedThread.js` beside this module (the indexer's parse
 * pool does the same). From the TypeScript sources that is a small loader that registers tsx and
 * requires `embedWorker.ts`; in the Electron bundle (out/main) it is the `embedThread` entry that
 * electron.vite.config.ts builds from `embedWorker.ts`.
 */
export function embedWorkerEntry(): WorkerEntry {
  return { eval: false, script: join(__dirname, 'embedThread.js') };
}

/** The embedded default embedder as the engine uses it: the model runs off the engine's thread. */
export interface BackgroundEmbedder extends Embedder {
  /** Where the model runs: not yet decided (nothing embedded yet), a worker thread, or this thread. */
  readonly where: 'pending' | 'worker' | 'in-thread';
  /** Terminate the worker (pending requests fail with CANCELLED). */
  dispose(): Promise<void>;
}

/** Options of {@link createBackgroundEmbedder}. */
export interface BackgroundEmbedderOptions {
  /**
   * Texts per worker request (default 4): a query waits for at most one batch in flight, and the
   * batch size hardly changes throughput (bench/embed.bench.ts).
   */
  batchSize?: number;
  /** Override the worker script (tests: a broken one exercises the fallback). */
  entry?: WorkerEntry;
  /** Where the fallback warning goes (default console.warn). */
  warn?: (message: string) => void;
}

/**
 * The Universal Sentence Encoder lite (`use-lite`) in one worker thread, started on first use and
 * kept for the engine's lifetime. When the worker cannot start, embeds in this thread instead and
 * says so once through `warn`. Vectors are identical either way.
 */
export function createBackgroundEmbedder(options: BackgroundEmbedderOptions = {}): BackgroundEmbedder {
  const warn = options.warn ?? ((m: string) => console.warn(m));
  let where: BackgroundEmbedder['where'] = 'pending';
  let client: EmbedWorkerClient | undefined;
  let backend: Promise<EmbedBatch> | undefined;
  let disposed = false;
  const choose = (): Promise<EmbedBatch> =>
    (backend ??= (async () => {
      const entry = options.entry ?? embedWorkerEntry();
      try {
        if (!entry.eval && !existsSync(entry.script)) throw new Error(`no worker script at ${entry.script}`);
        const started = new EmbedWorkerClient(entry);
        client = started;
        await started.ready;
        where = 'worker';
        return (texts: string[], signal?: AbortSignal) => started.embed(texts, signal);
      } catch (error) {
        client = undefined;
        if (disposed) throw new AppError('CANCELLED', 'The engine is shutting down.');
        warn(`[search] embedding worker could not start (${(error as Error).message}); embedding on the main thread instead.`);
        where = 'in-thread';
        return async (texts: string[]) => (await loadUseModel()).embed(texts);
      }
    })());
  const embedder = createEmbedder({
    id: DEFAULT_EMBEDDER_ID,
    dimensions: 512,
    batchSize: options.batchSize ?? 4,
    embedBatch: async (texts, signal) => {
      if (disposed) throw new AppError('CANCELLED', 'The engine is shutting down.');
      if (client?.failed) {
        // The worker died (crash, out of memory): start a fresh one for the next request.
        warn(`[search] embedding worker stopped (${client.failed.message}); restarting it.`);
        client = undefined;
        backend = undefined;
      }
      return (await choose())(texts, signal);
    },
  });
  return {
    ...embedder,
    get where() {
      return where;
    },
    async dispose() {
      disposed = true;
      await client?.terminate();
    },
  };
}

/** The engine-side end of the worker: numbered requests, transferred Float32Array replies. */
class EmbedWorkerClient {
  /** Resolves on the worker's `ready`; rejects when it fails or exits first. */
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: unknown) => void }>();
  private failure: Error | undefined;

  constructor(entry: WorkerEntry) {
    const { Worker } = workerThreads();
    const worker = new Worker(entry.script, { eval: entry.eval });
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: EmbedWorkerReply) => {
        if (reply.type === 'ready') return resolve();
        const waiting = this.pending.get(reply.id);
        this.settle(reply.id);
        if (!waiting) return; // cancelled meanwhile: drop the result
        if (reply.type === 'result') waiting.resolve(reply.vectors);
        else waiting.reject(reply.code ? deserializeError({ code: reply.code as ErrorCode, message: reply.message }) : new Error(reply.message));
      });
      worker.on('error', (error) => {
        reject(error);
        this.fail(error);
      });
      worker.on('exit', (code) => {
        const error = new Error(`The embedding worker exited (code ${code}).`);
        reject(error);
        this.fail(error);
      });
    });
    this.ready.then(
      () => worker.unref(),
      () => undefined,
    );
  }

  /** Why the worker can no longer answer, once it crashed, exited or was stopped. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** Raw vectors for `texts`; rejects with CANCELLED as soon as `signal` fires (the worker's result is dropped). */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    throwIfAborted(signal);
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      const onAbort = () => {
        this.settle(id);
        reject(new AppError('CANCELLED', 'Cancelled.'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      });
      // Keep the process alive only while a request is waiting (an idle worker never blocks exit).
      this.worker.ref();
      const request: EmbedWorkerRequest = { id, texts };
      this.worker.postMessage(request);
    });
  }

  async terminate(): Promise<void> {
    this.fail(new AppError('CANCELLED', 'The embedding worker was stopped.'));
    await this.worker.terminate();
  }

  private settle(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const [id, waiting] of [...this.pending]) {
      this.settle(id);
      waiting.reject(this.failure);
    }
  }
}
