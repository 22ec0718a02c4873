import type { RepoInfo } from '../../shared/contract';
import type { EngineClient } from './engine';

/** How current the index was when a tool answered. */
export interface Freshness {
  /** fresh: matches the folder (updated first when needed); updating: an update is still running, the answer comes from the previous index; stale: the update failed. */
  state: 'fresh' | 'updating' | 'stale';
  /** ISO time of the last finished index. */
  lastIndexedAt: string | null;
  /** Whether this call ran (or joined) an incremental index first. */
  reindexed: boolean;
  /** For people and agents: what the state means and what to do. */
  note?: string;
}

/**
 * Keeps the repositories a server answers about current: before a tool reads a repository, its
 * working tree's fingerprint (repos/fingerprint) is compared with the one taken when this server
 * last saw it indexed; on a difference (and on the first call, when nothing is known) an
 * incremental index runs through the contract (repos/reindex) and the call waits for it up to
 * `waitMs`. A longer update goes on in the background and the answer says how stale it is; calls
 * on the same repository share one update.
 */
export class FreshnessKeeper {
  private readonly known = new Map<string, string>();
  private readonly updates = new Map<string, { done: Promise<void>; startedAt: number; error?: string }>();

  constructor(
    private readonly engine: EngineClient,
    private readonly waitMs: number,
  ) {}

  async ensure(repo: RepoInfo): Promise<Freshness> {
    let update = this.updates.get(repo.id);
    if (!update) {
      // None when the engine cannot say (e.g. the repository is gone): an update is tried, and says why it failed.
      const seen = await this.engine.request('repos/fingerprint', { repoId: repo.id }).then((f) => f.fingerprint, () => undefined);
      if (seen !== undefined && this.known.get(repo.id) === seen) return { state: 'fresh', lastIndexedAt: repo.lastIndexedAt, reindexed: false };
      update = this.start(repo, seen);
    }
    const finished = await Promise.race([update.done.then(() => true), delay(this.waitMs).then(() => false)]);
    const current = await this.engine.request('repos/get', { repoId: repo.id }).catch(() => repo);
    if (!finished) {
      const seconds = Math.round((Date.now() - update.startedAt) / 1000);
      return {
        state: 'updating',
        lastIndexedAt: current.lastIndexedAt,
        reindexed: true,
        note: `The repository changed since its last index (${current.lastIndexedAt ?? 'never'}); an incremental update has been running for ${seconds} s and goes on in the background. This answer comes from the previous index: files changed since then may be missing or out of date. Call again in a while for a current answer.`,
      };
    }
    if (update.error) return { state: 'stale', lastIndexedAt: current.lastIndexedAt, reindexed: true, note: `The index could not be updated (${update.error}); this answer comes from the index of ${current.lastIndexedAt ?? 'never'}. Run \`cra index ${repo.path}\` to see why.` };
    return { state: 'fresh', lastIndexedAt: current.lastIndexedAt, reindexed: true };
  }

  private start(repo: RepoInfo, seen: string | undefined): { done: Promise<void>; startedAt: number; error?: string } {
    const entry: { done: Promise<void>; startedAt: number; error?: string } = { done: Promise.resolve(), startedAt: Date.now() };
    entry.done = (async () => {
      try {
        const { runId } = await this.engine.request('repos/reindex', { repoId: repo.id });
        await this.engine.wait(runId);
        // The fingerprint taken before the run: a change made while it ran is seen next time.
        if (seen !== undefined) this.known.set(repo.id, seen);
      } catch (error) {
        entry.error = error instanceof Error ? error.message : String(error);
        process.stderr.write(`cra mcp: updating the index of ${repo.path} failed: ${entry.error}\n`);
      } finally {
        this.updates.delete(repo.id);
      }
    })();
    this.updates.set(repo.id, entry);
    return entry;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
