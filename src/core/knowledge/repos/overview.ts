import type { RepoOverviewView } from '../../../shared/contract';
import type { KnowledgeBase } from '../kb/knowledgeBase';

/** The folder a path counts under: its first two folder levels (`src/core` for src/core/a/b.ts), `.` for a root file. */
export function moduleOf(path: string): string {
  const folders = path.split('/').slice(0, -1);
  return folders.length === 0 ? '.' : folders.slice(0, 2).join('/');
}

/**
 * An index at a glance (repos/overview): the knowledge base's counts and hubs, the folders with the
 * most indexed files (skipped files left out) and the latest commits. Reads only the index.
 */
export function repoOverview(
  kb: Pick<KnowledgeBase, 'getRepoOverview' | 'getFiles' | 'getRecentCommits'>,
  repoId: string,
  limits: { modules: number; commits: number },
): RepoOverviewView {
  const o = kb.getRepoOverview();
  const modules = new Map<string, { files: number; languages: Record<string, number> }>();
  for (const f of kb.getFiles()) {
    if (f.skipReason !== null) continue;
    const key = moduleOf(f.path);
    const m = modules.get(key) ?? { files: 0, languages: {} };
    m.files++;
    m.languages[f.language] = (m.languages[f.language] ?? 0) + 1;
    modules.set(key, m);
  }
  return {
    repoId,
    files: o.files,
    skippedFiles: o.skippedFiles,
    testFiles: o.testFiles,
    symbols: o.symbols,
    dependencies: o.dependencies,
    commits: o.commits,
    languages: o.languages,
    modules: [...modules]
      .map(([path, m]) => ({ path, ...m }))
      .sort((a, b) => b.files - a.files || a.path.localeCompare(b.path))
      .slice(0, limits.modules),
    mostConnected: o.mostConnected.map(({ path, imports, importedBy }) => ({ path, imports, importedBy })),
    recentCommits: kb.getRecentCommits(limits.commits).map(({ sha, author, date, message }) => ({ sha, author, date, message })),
  };
}
