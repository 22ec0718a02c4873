import { join } from 'node:path';
import { openDatabase } from '../db/open';
import { createExtractor, type Extractor } from '../indexer/extract/extractor';
import { createImportResolver } from '../indexer/extract/resolve';
import { indexRepository } from '../indexer/indexer';
import { searchRepository } from '../search/search';
import type { ProductRetrieval } from './run';

/**
 * The product's model-free retrieval for the evaluation: the real indexer (incremental, into one
 * curated database per evaluation run) and the real search in keyword mode (FTS5 + definitions +
 * graph signals; no vectors, so no embedding model is needed). The tree-sitter extractor is loaded
 * once and shared by every task of the run.
 */
export function productRetrieval(): ProductRetrieval {
  let extractor: Promise<Extractor> | undefined;
  const curatedFile = (stateDir: string) => join(stateDir, 'curated.sqlite');
  return {
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
    async search({ stateDir, text, limit, signal }) {
      const db = openDatabase(curatedFile(stateDir), { readOnly: true });
      try {
        const results = await searchRepository(db, text, { limit, signal, mode: 'keyword' });
        return results.map((r) => r.path);
      } finally {
        db.close();
      }
    },
  };
}
