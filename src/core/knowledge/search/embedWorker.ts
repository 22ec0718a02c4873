/**
 * Worker-thread entry of the embedded embedding model: turns texts into raw vectors, nothing else
 * (no SQLite, no normalisation; the engine's thread does both). Protocol, see workerEmbedder.ts:
 * in `{ id, texts }`; out `{ type: 'ready' }` once at start, then `{ type: 'result', id, vectors }`
 * (Float32Arrays, buffers transferred) or `{ type: 'error', id, code, message }` per request.
 */
import { parentPort } from 'node:worker_threads';
import { loadUseModel } from './embedder';

/** A request to the embedding worker. */
export interface EmbedWorkerRequest {
  id: number;
  texts: string[];
}

/** A reply of the embedding worker. */
export type EmbedWorkerReply =
  | { type: 'ready' }
  | { type: 'result'; id: number; vectors: Float32Array[] }
  | { type: 'error'; id: number; code: string | undefined; message: string };

const port = parentPort;
if (port) {
  port.on('message', (request: EmbedWorkerRequest) => {
    void (async () => {
      try {
        const model = await loadUseModel();
        const vectors = (await model.embed(request.texts)).map((v) => Float32Array.from(v));
        const reply: EmbedWorkerReply = { type: 'result', id: request.id, vectors };
        port.postMessage(
          reply,
          vectors.map((v) => v.buffer as ArrayBuffer),
        );
      } catch (error) {
        const reply: EmbedWorkerReply = { type: 'error', id: request.id, code: (error as { code?: string }).code, message: (error as Error).message };
        port.postMessage(reply);
      }
    })();
  });
  port.postMessage({ type: 'ready' } satisfies EmbedWorkerReply);
}
