import { dirname, join } from 'node:path';
import { createExtractor } from '../knowledge/indexer/extract/extractor';
import { createImportResolver } from '../knowledge/indexer/extract/resolve';
import { indexRepository } from '../knowledge/indexer/indexer';
import type { SearchResult } from '../../shared/contract/search';
import { openDatabase, type Db } from '../platform/db/open';
import { overrideRanking, type RankingOverrides } from '../knowledge/search/rankingConstants';
import { searchRepository } from '../knowledge/search/search';
import { createTestRepo } from './gitRepo';

/**
 * Test support: a small real git repository (Python), committed in several commits so co-change
 * pairs exist, and indexed by the real indexer. Returns the repository and curated DB paths.
 */
export async function makeIndexedRepo(files: Record<string, string>, commits: string[][] = []): Promise<{ root: string; curatedFile: string }> {
  const repo = createTestRepo({ prefix: 'cra-search-' });
  const root = repo.root;
  repo.writeFiles(files);
  repo.commit('initial');
  // Each extra commit appends a comment line to the listed files, so they change together.
  commits.forEach((paths, i) => {
    for (const path of paths) repo.write(path, `${files[path]}\n# change ${i}\n`);
    repo.commit(`change ${i}`);
  });
  const curatedFile = join(dirname(root), 'data', 'curated.sqlite');
  await indexRepository({ root, curatedFile, ...indexerDeps() });
  return { root, curatedFile };
}

/** An indexed repository of `files` with a read-only connection to its index (close it after). */
export interface SearchableRepo {
  db: Db;
  /** The search's results for `query`, ranked with `overrides` (restored after the search). */
  search(query: string, overrides?: RankingOverrides, limit?: number): Promise<SearchResult[]>;
  close(): void;
}

/** {@link makeIndexedRepo}, opened for searching. */
export async function makeSearchableRepo(files: Record<string, string>): Promise<SearchableRepo> {
  const { curatedFile } = await makeIndexedRepo(files);
  const db = openDatabase(curatedFile, { readOnly: true });
  return {
    db,
    async search(query, overrides = {}, limit = 20) {
      const restore = overrideRanking(overrides);
      try {
        return await searchRepository(db, query, { limit });
      } finally {
        restore();
      }
    },
    close: () => db.close(),
  };
}

/** The extractor and resolver the indexer needs, as the engine wires them. */
export function indexerDeps(): Pick<Parameters<typeof indexRepository>[0], 'extractor' | 'resolver'> {
  return {
    extractor: () => createExtractor(),
    resolver: (files, readFile) => {
      const resolver = createImportResolver({ files, readFile });
      return (fromPath, imp, language) => resolver.resolve(fromPath, imp, language);
    },
  };
}
