/**
 * Entry of a parse worker thread (see parsePool.ts): holds its own tree-sitter extractor, loads
 * the grammars it is told about one by one before any parse, then answers `PrepareJob` messages
 * with `PreparedFile` results. From the sources it is started through indexWorker.js (which loads
 * tsx); the Electron build bundles it as out/main/indexWorker.js. Started with a `chunk-index` role
 * it is the search index thread of a full build instead (chunkIndexThread.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runChunkIndexThread, type ChunkIndexThreadData } from '../chunkIndexThread';
import { claim, CLAIMED_BY_WORKER } from './claims';
import { createExtractor } from '../extract/extractor';
import type { ParsedLanguage } from '../extract/types';
import { extractWith, prepareFile, type PrepareJob, type PreparedFile } from './prepare';

/** What the pool passes to each worker. */
export interface ParseWorkerData {
  languages: ParsedLanguage[];
  /** The run's claim table (claims.ts), when the engine thread may take queued jobs back. */
  claims?: Int32Array;
}

/** A request from the pool. */
export interface ParseRequest {
  id: number;
  job: PrepareJob;
  /** The job's index in the claim table: prepared only if this worker claims it first. */
  claim?: number;
}

/** The answer to a request: a result, why preparing the file failed, or that another thread claimed it. */
export type ParseResponse =
  | { id: number; result: PreparedFile; error?: undefined; skipped?: undefined }
  | { id: number; error: string; result?: undefined; skipped?: undefined }
  | { id: number; skipped: true; result?: undefined; error?: undefined };

async function start(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('parseWorker must run in a worker thread');
  const { languages, claims } = workerData as ParseWorkerData;
  const ready = (async () => {
    const extractor = await createExtractor();
    for (const language of languages) {
      try {
        await extractor.load([language]);
      } catch (error) {
        // The files of this language are indexed as text (extract throws, extractWith catches).
        console.warn(`[indexer] ${(error as Error).message}`);
      }
    }
    return extractWith(extractor);
  })().catch((error: unknown) => {
    console.warn(`[indexer] no parser in this worker, files are indexed as text: ${(error as Error).message}`);
    return null;
  });
  port.on('message', (message: ParseRequest) => {
    void ready.then((extract) => {
      if (claims && message.claim !== undefined && !claim(claims, message.claim, CLAIMED_BY_WORKER)) {
        port.postMessage({ id: message.id, skipped: true } satisfies ParseResponse);
        return;
      }
      try {
        port.postMessage({ id: message.id, result: prepareFile(message.job, extract) } satisfies ParseResponse);
      } catch (error) {
        port.postMessage({ id: message.id, error: (error as Error).message } satisfies ParseResponse);
      }
    });
  });
}

if ((workerData as Partial<ChunkIndexThreadData>).role === 'chunk-index' && parentPort) runChunkIndexThread(parentPort, workerData as ChunkIndexThreadData);
else void start();
