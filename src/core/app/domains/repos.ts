import type { Handlers } from '../../../shared/contract';
import { treeFingerprint } from '../../knowledge/repos/fingerprint';
import { notIndexed } from '../../knowledge/repos/indexed';
import { repoOverview } from '../../knowledge/repos/overview';
import type { RepoService } from '../../knowledge/repos/service';
import { confinePath } from '../../platform/fs/confine';
import type { RunRegistry } from '../../platform/runtime/runs';

type RepoHandlers = Pick<
  Handlers,
  'repos/list' | 'repos/get' | 'repos/add' | 'repos/remove' | 'repos/reindex' | 'repos/watch' | 'repos/skipped' | 'repos/file' | 'repos/readFile' | 'repos/fingerprint' | 'repos/find' | 'repos/resolve' | 'repos/overview' | 'repos/probe'
>;

/** The repository registry, indexing runs (answered with their records from `runs`), watchers, the file view (confined for a given path) and the working tree's fingerprint. */
export function createRepoHandlers(service: RepoService, runs: Pick<RunRegistry, 'started'>): RepoHandlers {
  return {
    'repos/list': async () => service.registry.list(),
    'repos/get': async ({ repoId }) => service.get(repoId),
    'repos/add': async ({ path, watch, full }) => {
      const { repo, runId } = service.add(path, { watch, full });
      return { ...runs.started(runId, 'index'), repo };
    },
    'repos/remove': async ({ repoId }) => service.remove(repoId),
    'repos/reindex': async ({ repoId, full }) => runs.started(service.reindex(repoId, full).runId, 'index'),
    'repos/watch': async ({ repoId, enabled }) => service.setWatching(repoId, enabled),
    'repos/skipped': async ({ repoId }) => service.skipped(repoId),
    'repos/file': async ({ repoId, path, maxContentBytes }) => service.fileView(repoId, path, maxContentBytes),
    'repos/readFile': async ({ repoId, path, maxContentBytes }) => service.fileView(repoId, confinePath(service.get(repoId).path, path).relative, maxContentBytes),
    'repos/fingerprint': async ({ repoId }) => {
      const repo = service.get(repoId);
      return { repoId, fingerprint: await treeFingerprint(repo.path), lastIndexedAt: repo.lastIndexedAt };
    },
    'repos/find': async ({ path, indexed }) => {
      const repo = service.find(path);
      if (indexed && (!repo || repo.lastIndexedAt === null)) throw notIndexed(repo?.path ?? path);
      return repo;
    },
    'repos/resolve': async ({ path }) => service.resolve(path),
    'repos/probe': async ({ path, limit }) => service.probe(path, limit),
    'repos/overview': async ({ repoId, modules, commits }) => service.withIndex(repoId, (kb) => repoOverview(kb, repoId, { modules, commits })),
  };
}
