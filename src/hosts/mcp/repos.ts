import { resolve } from 'node:path';
import { AppError, type RepoInfo } from '../../shared/contract';
import type { EngineClient } from './engine';
import type { Freshness, FreshnessKeeper } from './freshness';

/** A repository a tool reads, checked to be indexed, and how current its index was made. */
export interface OpenedRepo {
  repo: RepoInfo;
  index: Freshness;
}

/**
 * Which repository a tool call is about: the one given with `--repo`, else the tool's `repo`
 * argument (a registered repository's id, or a folder: absolute, or relative to the server's
 * folder). An unknown or never-indexed one is an error that says which command to run.
 */
export class RepoResolver {
  constructor(
    private readonly engine: EngineClient,
    private readonly freshness: FreshnessKeeper,
    /** The folder given with --repo; undefined: every indexed repository. */
    readonly fixed: string | undefined,
  ) {}

  /** The repository (updated first when it changed; see FreshnessKeeper). */
  async open(ref: string | undefined): Promise<OpenedRepo> {
    const repo = await this.find(ref);
    return { repo, index: await this.freshness.ensure(repo) };
  }

  /** The registered, indexed repository for a reference, without touching its index. */
  async find(ref: string | undefined): Promise<RepoInfo> {
    const given = this.fixed ?? ref;
    if (given === undefined || given.trim() === '') {
      throw new AppError('VALIDATION', 'No repository given: pass `repo` (a path or an id; list_repositories lists the indexed ones), or start the server with `cra mcp --repo PATH`.');
    }
    const byId = this.fixed === undefined ? (await this.engine.request('repos/list', {})).find((r) => r.id === given) : undefined;
    const repo = byId ?? (await this.byPath(given));
    // Never indexed (or its first index still running): the engine says so, with the command to run;
    // indexed meanwhile: its record as it is now.
    if (repo.lastIndexedAt === null) return (await this.engine.request('repos/find', { path: repo.path, indexed: true }))!;
    return repo;
  }

  private async byPath(path: string): Promise<RepoInfo> {
    let repo: RepoInfo | null;
    try {
      repo = await this.engine.request('repos/find', { path });
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') {
        throw new AppError('NOT_FOUND', `No repository at ${resolve(path)}: the folder does not exist, and no indexed repository has that id. Call list_repositories for the indexed ones.`);
      }
      throw error;
    }
    // Not registered: the engine's NOT_INDEXED says what to run (registered meanwhile: its record).
    return repo ?? (await this.engine.request('repos/find', { path, indexed: true }))!;
  }
}
