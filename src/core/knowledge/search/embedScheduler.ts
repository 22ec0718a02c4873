import { existsSync } from 'node:fs';
import { isCancellation, type RepoInfo } from '../../../shared/contract';
import { loadUserConfigCached } from '../../platform/config';
import { openDatabase } from '../../platform/db/open';
import { KnowledgeBase } from '../kb/knowledgeBase';
import type { EventBus } from '../../platform/runtime/events';
import type { RunRegistry } from '../../platform/runtime/runs';
import { embedRepository, type EmbedSummary } from './embedRun';
import type { Embedder } from './embedder';

/** Environment switch for automatic embedding: `0`/`false` off, `1`/`true` on; overrides the config. */
export const EMBEDDINGS_ENV = 'CRA_EMBEDDINGS';

/**
 * Whether the app embeds repositories by itself after each index: `CRA_EMBEDDINGS`, else
 * `[retrieval] embeddings = true|false` of the user config, else off: `auto` search is keyword-only
 * (measured better than hybrid with the built-in model), so vectors are only worth their CPU for people
 * who ask for semantic or hybrid search. An unreadable config leaves it off.
 */
export function autoEmbeddingEnabled(dataDir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return embeddingSwitch(dataDir, env) ?? false;
}

/**
 * {@link autoEmbeddingEnabled}, but undefined while the config cannot be read: a half-saved or
 * mistyped file must not cancel runs (the scheduler keeps the last value it read).
 */
export function embeddingSwitch(dataDir: string, env: NodeJS.ProcessEnv = process.env): boolean | undefined {
  const fromEnv = env[EMBEDDINGS_ENV]?.trim().toLowerCase();
  if (fromEnv === '0' || fromEnv === 'false' || fromEnv === 'off') return false;
  if (fromEnv === '1' || fromEnv === 'true' || fromEnv === 'on') return true;
  try {
    return loadUserConfigCached(dataDir).values.retrieval.embeddings;
  } catch {
    return undefined;
  }
}

/** What the scheduler needs from the search domain. */
export interface EmbedSchedulerDeps {
  ctx: { runs: RunRegistry; events: EventBus };
  embedder: () => Embedder;
  /** The repository and its curated DB file, or an AppError (NOT_FOUND, NOT_INDEXED). */
  resolve: (repoId: string) => { info: RepoInfo; file: string };
  /** Every registered repository now (switching embedding on embeds the ready ones). */
  list: () => readonly RepoInfo[];
  /**
   * Whether automatic embedding is on now, read at every decision (so a change applies without a
   * restart); undefined while the setting cannot be read (the last value read stands).
   */
  enabled: () => boolean | undefined;
}

/** Options of {@link EmbedScheduler.follow}. */
export interface FollowOptions {
  /** Resume unfinished repositories this long after start (default 3 s). */
  resumeAfterMs?: number;
  /** How often to look at the switch for hand edits of config.toml (default 2 s; one stat per look). */
  watchMs?: number;
}

/**
 * One embedding run per repository at a time. Explicit starts join a running one. In the app hosts
 * `follow` makes vectors follow the index while automatic embedding is switched on: a run starts
 * after each successful index (after the `repos/changed` ready event, so the index is usable first),
 * a run in progress is stopped while its repository is re-indexed (it would wait on the index's
 * write lock) and the next index starts a fresh incremental one. The switch is read when each of
 * these decisions is taken; `settingsChanged` applies a change at once (off: automatic runs are
 * cancelled, explicit ones go on; on: ready repositories with chunks lacking vectors are embedded).
 */
export class EmbedScheduler {
  private readonly running = new Map<string, { runId: string; auto: boolean; again: boolean }>();
  private readonly indexedAt = new Map<string, string | null>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private following = false;
  private lastEnabled = false;
  /** The switch's value the last settingsChanged acted on. */
  private applied = false;
  private disposed = false;

  constructor(private readonly deps: EmbedSchedulerDeps) {}

  /** Start (or join) the embedding run of a repository; returns its run id. */
  start(repoId: string, auto = false): string {
    const current = this.running.get(repoId);
    if (current && this.deps.ctx.runs.list(false).some((r) => r.runId === current.runId)) return current.runId;
    const { info, file } = this.deps.resolve(repoId);
    const { runId, done } = this.deps.ctx.runs.start('embed', `Embedding ${info.name}`, async ({ signal, progress }): Promise<EmbedSummary> => {
      const db = openDatabase(file, { withVectors: true });
      try {
        return await embedRepository(db, this.deps.embedder(), { signal, progress });
      } finally {
        db.close();
      }
    }, { repoId });
    this.running.set(repoId, { runId, auto, again: false });
    const clear = () => {
      const entry = this.running.get(repoId);
      if (entry?.runId !== runId) return;
      this.running.delete(repoId);
      // The index changed while an explicit run was going: embed what it added.
      if (entry.again) this.later(0, () => this.startAuto(repoId));
    };
    done.then(clear, (error: unknown) => {
      clear();
      if (!isCancellation(error)) console.warn(`[search] embedding ${info.name} failed: ${(error as Error).message}`);
    });
    return runId;
  }

  /** Whether an embedding run of this repository is going on. */
  isRunning(repoId: string): boolean {
    return this.running.has(repoId);
  }

  /** Whether this engine embeds repositories by itself now (following, and the switch is on). */
  get autoEmbedding(): boolean {
    return this.following && this.isOn();
  }

  /** Follow the index of every repository (the app hosts); resumes unfinished repositories a little after start. */
  follow(repos: readonly RepoInfo[], options: FollowOptions = {}): () => void {
    this.following = true;
    for (const repo of repos) this.indexedAt.set(repo.id, repo.lastIndexedAt);
    const stop = this.deps.ctx.events.on('repos/changed', (repo) => this.changed(repo));
    // Repositories whose embedding was interrupted (the app quit) continue a little after start.
    this.later(options.resumeAfterMs ?? 3000, () => this.embedPending(repos));
    // Hand edits of config.toml: one stat per look, a parse only when the file changed.
    this.applied = this.isOn();
    const watch = setInterval(() => this.settingsChanged(), options.watchMs ?? 2000);
    watch.unref();
    return () => {
      this.following = false;
      clearInterval(watch);
      stop();
    };
  }

  /**
   * Apply the switch when its value changed (config/set calls this; so does the watch on
   * config.toml): off cancels the automatic runs (explicit ones go on; finished batches are kept),
   * on embeds the ready repositories that have chunks without vectors. Saving another setting does
   * nothing here (an automatic run the user cancelled stays cancelled).
   */
  settingsChanged(): void {
    if (!this.following || this.disposed) return;
    const on = this.isOn();
    if (on === this.applied) return;
    this.applied = on;
    if (!on) {
      for (const [repoId, entry] of [...this.running]) {
        if (!entry.auto) continue;
        this.running.delete(repoId);
        this.deps.ctx.runs.cancel(entry.runId);
      }
      return;
    }
    this.later(0, () => this.embedPending(this.deps.list()));
  }

  /** Cancel the runs and timers (engine shutdown) and wait for the runs to end. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const runs = [...this.running.values()];
    for (const { runId } of runs) this.deps.ctx.runs.cancel(runId);
    await Promise.all(runs.map(({ runId }) => this.deps.ctx.runs.wait(runId).catch(() => undefined)));
  }

  private isOn(): boolean {
    this.lastEnabled = this.deps.enabled() ?? this.lastEnabled;
    return this.lastEnabled;
  }

  /** An automatic start: only while the switch is on (read now, not when it was queued). */
  private startAuto(repoId: string): void {
    if (!this.following || !this.isOn() || this.running.has(repoId)) return;
    this.start(repoId, true);
  }

  private embedPending(repos: readonly RepoInfo[]): void {
    for (const repo of repos) {
      if (repo.status !== 'ready' || repo.lastIndexedAt === null || this.running.has(repo.id)) continue;
      try {
        if (hasPendingChunks(this.deps, repo.id)) this.startAuto(repo.id);
      } catch (error) {
        // Removed or not indexed meanwhile: nothing to embed there; the others still are.
        if (!isCancellation(error)) console.warn(`[search] automatic embedding of ${repo.name} not started: ${(error as Error).message}`);
      }
    }
  }

  private changed(repo: RepoInfo): void {
    const current = this.running.get(repo.id);
    if (repo.status === 'indexing') {
      if (current?.auto) {
        this.running.delete(repo.id);
        this.deps.ctx.runs.cancel(current.runId);
      }
      return;
    }
    if (repo.status !== 'ready' || repo.lastIndexedAt === null || this.indexedAt.get(repo.id) === repo.lastIndexedAt) return;
    this.indexedAt.set(repo.id, repo.lastIndexedAt);
    if (!this.isOn()) return;
    if (current) {
      current.again = true;
      return;
    }
    // After the index run has reported its result: the index is usable before any embedding starts.
    this.later(0, () => this.startAuto(repo.id));
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.disposed) return;
      try {
        fn();
      } catch (error) {
        // The repository was removed or not indexed meanwhile: nothing to embed.
        if (!isCancellation(error)) console.warn(`[search] automatic embedding not started: ${(error as Error).message}`);
      }
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}

/** Whether a repository has chunks without a vector of the default embedder (cheap counts, read-only). */
function hasPendingChunks(deps: EmbedSchedulerDeps, repoId: string): boolean {
  const { info, file } = deps.resolve(repoId);
  if (!existsSync(file)) return false;
  const kb = KnowledgeBase.open(file, info.id);
  try {
    return kb.vectorCount(deps.embedder().id) < kb.searchIndex.chunkCount();
  } finally {
    kb.close();
  }
}
