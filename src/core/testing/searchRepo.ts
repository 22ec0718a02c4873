import { dirname, join } from 'node:path';
import { createExtractor } from '../knowledge/indexer/extract/extractor';
import { createImportResolver } from '../knowledge/indexer/extract/resolve';
import { indexRepository } from '../knowledge/indexer/indexer';
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
