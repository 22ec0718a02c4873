import { existsSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { RepoInfo } from '../../../shared/contract';
import { AppError } from '../../../shared/contract/errors';
import { RepoRegistry } from './registry';
import { repoPaths } from '../../platform/layout';

/** A repository as the app names it (its id) or as the CLI does (a folder, relative to the cwd). */
export type RepoRef = { repoId: string } | { path: string };

/** A registered repository whose index can be read. */
export interface IndexedRepo {
  info: RepoInfo;
  /** Its curated database (exists). */
  curatedFile: string;
}

/** What the decision reads: the data folder and the registry, opened only when a lookup needs it. */
export interface RepoLookup {
  dataDir: string;
  registry: () => Pick<RepoRegistry, 'get' | 'findByPath'>;
}

/** NOT_FOUND for an id the registry does not know, saying how to add the repository. */
export function unknownRepository(repoId: string): AppError {
  return new AppError('NOT_FOUND', `No repository with id ${repoId}. Add it first (cra index <path> or Repositories → Add).`);
}

/**
 * NOT_INDEXED for a folder without a usable index (not registered, registered but never indexed,
 * or its index file gone), saying what to do. One message for the app and the CLI.
 */
export function notIndexed(path: string): AppError {
  return new AppError(
    'NOT_INDEXED',
    `${path} is not indexed yet; run \`cra index ${path}\` or add it on the Repositories page (a first index still running: wait for it to finish).`,
  );
}

/** NOT_INDEXED for an index that exists but holds no file (retrieval's preflight). */
export function emptyIndex(path: string): AppError {
  return new AppError('NOT_INDEXED', `The index of ${path} has no files; run \`cra index ${path}\` first.`);
}

/** The registered repository with this id, or NOT_FOUND. */
export function requireRepo(registry: Pick<RepoRegistry, 'get'>, repoId: string): RepoInfo {
  const info = registry.get(repoId);
  if (!info) throw unknownRepository(repoId);
  return info;
}

/**
 * The registered repository at `absolute` or the nearest one above it (a command run from a
 * subfolder of an indexed repository means that repository), matched as given and through the
 * real path (a symlinked checkout). Undefined when no folder on the way up is registered.
 */
export function enclosingRepo(registry: Pick<RepoRegistry, 'findByPath'>, absolute: string): RepoInfo | undefined {
  for (const start of new Set([absolute, realpathSync(absolute)])) {
    for (let folder = start; ; folder = dirname(folder)) {
      const info = registry.findByPath(folder);
      if (info) return info;
      if (dirname(folder) === folder) break;
    }
  }
  return undefined;
}

/**
 * The one place that decides whether a repository can be read, for the app (by id), the browser
 * (the same handlers) and the CLI (by folder):
 * - NOT_FOUND: an id the registry does not know, or a folder that does not exist;
 * - a folder inside a registered repository (a subfolder) means that repository;
 * - NOT_INDEXED: an existing folder that is not registered, a repository whose first index has not
 *   finished (`lastIndexedAt` null), or one whose index file is gone.
 * A folder is matched as given and through its real path (a symlinked checkout). The registry is
 * not touched for a folder that does not exist.
 */
export function resolveIndexedRepo(lookup: RepoLookup, ref: RepoRef): IndexedRepo {
  let info: RepoInfo | undefined;
  if ('repoId' in ref) info = requireRepo(lookup.registry(), ref.repoId);
  else {
    const absolute = resolve(ref.path);
    if (!existsSync(absolute)) throw new AppError('NOT_FOUND', `${absolute} does not exist; give the folder of an indexed repository (--repo PATH).`);
    info = enclosingRepo(lookup.registry(), absolute);
    if (!info) throw notIndexed(absolute);
  }
  const curatedFile = repoPaths(lookup.dataDir, info.id).curated;
  if (info.lastIndexedAt === null || !existsSync(curatedFile)) throw notIndexed(info.path);
  return { info, curatedFile };
}

/**
 * The CLI's lookup of a folder given on the command line, before any engine exists: the decision
 * of {@link resolveIndexedRepo}, with the registry opened only when the folder exists, and closed.
 */
export function findIndexedRepo(dataDir: string, path: string): RepoInfo {
  let registry: RepoRegistry | undefined;
  try {
    return resolveIndexedRepo({ dataDir, registry: () => (registry ??= new RepoRegistry(dataDir)) }, { path }).info;
  } finally {
    registry?.close();
  }
}
