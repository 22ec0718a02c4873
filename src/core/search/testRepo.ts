import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createExtractor } from '../indexer/extract/extractor';
import { createImportResolver } from '../indexer/extract/resolve';
import { indexRepository } from '../indexer/indexer';

/**
 * Test support: a small real git repository (Python), committed in several commits so co-change
 * pairs exist, and indexed by the real indexer. Returns the repository and curated DB paths.
 */
export async function makeIndexedRepo(files: Record<string, string>, commits: string[][] = []): Promise<{ root: string; curatedFile: string }> {
  const base = mkdtempSync(join(tmpdir(), 'cra-search-'));
  const root = join(base, 'repo');
  mkdirSync(root);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'test@example.com');
  git('config', 'user.name', 'Test');
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  // Each extra commit appends a comment line to the listed files, so they change together.
  commits.forEach((paths, i) => {
    for (const path of paths) write(path, `${files[path]}\n# change ${i}\n`);
    git('add', '-A');
    git('commit', '-q', '-m', `change ${i}`);
  });
  const curatedFile = join(base, 'data', 'curated.sqlite');
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
