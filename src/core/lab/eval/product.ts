import { join } from 'node:path';
import type { EvalMethod, EvalSearchMode } from '../../../shared/contract/eval';
import { openDatabase } from '../../platform/db/open';
import { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { createExtractor, type Extractor } from '../../knowledge/indexer/extract/extractor';
import { createImportResolver } from '../../knowledge/indexer/extract/resolve';
import { indexRepository } from '../../knowledge/indexer/indexer';
import type { Embedder } from '../../knowledge/search/embedder';
import { embedRepository } from '../../knowledge/search/embedRun';
import { searchRepository, sharedDefaultEmbedder } from '../../knowledge/search/search';
import { unitRanking } from './functionLevel';
import type { ProductRetrieval } from './run';

/** The search mode an evaluation measures (the contract's list). */
export type { EvalSearchMode };

/** The report's method name of each mode (`search` stays the keyword search, as before modes). */
export const EVAL_METHOD_OF_MODE: Record<EvalSearchMode, EvalMethod> = { keyword: 'search', hybrid: 'search-hybrid', semantic: 'search-semantic' };

/** Options of {@link productRetrieval}. */
export interface ProductRetrievalOptions {
  /** Default `keyword` (no vectors, no embedding model). */
  mode?: EvalSearchMode;
  /** Embedder of hybrid and semantic runs (default: the product's default embedder). */
  embedder?: Embedder;
}

/**
 * The product's retrieval for the evaluation: the real indexer (incremental, into one curated
 * database per evaluation run) and the real search in the given mode. Keyword mode (FTS5 +
 * definitions + graph signals) needs no embedding model; hybrid and semantic embed the chunks the
 * index added since the last task (`embedRepository` skips chunks that already have vectors) before
 * each search. The tree-sitter extractor is loaded once and shared by every task of the run.
 */
export function productRetrieval(options: ProductRetrievalOptions = {}): ProductRetrieval {
  let extractor: Promise<Extractor> | undefined;
  const mode = options.mode ?? 'keyword';
  const curatedFile = (stateDir: string) => join(stateDir, 'curated.sqlite');
  const embedder = () => options.embedder ?? sharedDefaultEmbedder();
  const searchUnits: NonNullable<ProductRetrieval['searchUnits']> = async ({ stateDir, text, limit, signal }) => {
    const db = openDatabase(curatedFile(stateDir), { readOnly: true, withVectors: mode !== 'keyword' });
    try {
      const results = await searchRepository(db, text, { limit, signal, mode, embedder: mode === 'keyword' ? undefined : embedder() });
      return { paths: results.map((r) => r.path), units: unitRanking(results) };
    } finally {
      db.close();
    }
  };
  return {
    method: EVAL_METHOD_OF_MODE[mode],
    embed:
      mode === 'keyword'
        ? undefined
        : async ({ stateDir, signal, progress }) => {
            const db = openDatabase(curatedFile(stateDir), { withVectors: true });
            try {
              const report = progress ? (p: { done: number; total?: number }) => progress(p.done, p.total ?? p.done) : undefined;
              return { embedded: (await embedRepository(db, embedder(), { signal, progress: report })).embedded };
            } finally {
              db.close();
            }
          },
    async index({ root, stateDir, signal }) {
      const summary = await indexRepository({
        root,
        curatedFile: curatedFile(stateDir),
        extractor: () => (extractor ??= createExtractor()),
        resolver: (files, readFile) => {
          const resolver = createImportResolver({ files, readFile });
          return (fromPath, imp, language) => resolver.resolve(fromPath, imp, language);
        },
        signal,
      });
      return { parsedFiles: summary.parsed };
    },
    knowledgeBase: (stateDir) => KnowledgeBase.open(curatedFile(stateDir), 'eval', { withVectors: mode !== 'keyword' }),
    search: async (args) => (await searchUnits(args)).paths,
    searchUnits,
  };
}
