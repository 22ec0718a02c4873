import type { SearchMode, VectorCoverage } from '../../../shared/contract/search';
import type { SearchIndex } from '../kb/searchIndex';
import type { VectorStore } from './vectorStore';

/** How many chunks of a curated database have a vector of `embedderId` (two counts; no vectors: 0). */
export function vectorCoverage(index: SearchIndex, embedderId: string, store: VectorStore | undefined): VectorCoverage {
  const chunks = index.chunkCount();
  return { embedderId, vectors: store?.count() ?? 0, chunks };
}

/**
 * The one-line note a search response carries when its results are weaker than the mode promises:
 * hybrid that fell back to keyword (no vectors), semantic with nothing to rank, or vectors that
 * cover only part of the chunks (the vector side cannot see the rest). Undefined when nothing needs
 * saying (keyword search, or every chunk has a vector). `embedding`: a run is filling the gap now.
 */
export function coverageNote(requested: Exclude<SearchMode, 'auto'>, used: Exclude<SearchMode, 'auto'>, coverage: VectorCoverage | undefined, embedding: boolean): string | undefined {
  if (requested === 'keyword' || !coverage || coverage.vectors >= coverage.chunks) return undefined;
  const remedy = embedding ? 'Embedding is running now; search again when it ends.' : 'Embed it (Embed now on the Repositories page, or `cra embed`).';
  if (coverage.vectors === 0) {
    if (requested === 'hybrid' && used === 'keyword') return `No vectors for this repository yet, so this is keyword search, not hybrid. ${remedy}`;
    return `No vectors for this repository yet, so semantic search has nothing to rank. ${remedy} Keyword mode works without them.`;
  }
  const percent = Math.floor((coverage.vectors / coverage.chunks) * 100);
  return `Vectors cover only ${coverage.vectors.toLocaleString('en-US')} of ${coverage.chunks.toLocaleString('en-US')} chunks (${percent}%): the ${requested} ranking cannot see the others. ${remedy}`;
}
