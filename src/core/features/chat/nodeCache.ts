import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';

/** How long a retrieved node stays cached (the index generation check drops it sooner). */
export const NODE_CACHE_TTL_MS = 5 * 60_000;
/** Entries kept per repository at most; the oldest go first. */
export const NODE_CACHE_MAX_ENTRIES = 20_000;

/** Hits and misses of one repository's cache since it was last invalidated. */
export interface NodeCacheStats {
  generation: string;
  entries: number;
  hits: number;
  misses: number;
}

/** One repository's cached nodes, for one generation of its index. */
export class RepoNodeCache {
  private readonly entries = new Map<string, { value: unknown; expiresAt: number }>();
  private hits = 0;
  private misses = 0;

  constructor(
    readonly generation: string,
    private readonly options: { ttlMs: number; maxEntries: number; now: () => number },
  ) {}

  /** The cached value of `key`, else `compute()` stored frozen (turns share it, so nobody may change it). */
  get<T>(key: string, compute: () => T): T {
    const now = this.options.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) {
      this.hits++;
      return hit.value as T;
    }
    this.misses++;
    const value = deepFreeze(compute());
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: now + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }

  /** Entries, hits and misses so far (tests, and a bench's figures). */
  stats(): NodeCacheStats {
    return { generation: this.generation, entries: this.entries.size, hits: this.hits, misses: this.misses };
  }
}

/**
 * Per-repository caches of what chat retrieval reads from the index by identity (files by path,
 * chunk bodies, import edges, co-change neighbours), each entry with a TTL. A cache belongs to one
 * generation of the repository's index (its `lastIndexedAt`): asking with another generation, or
 * {@link invalidate} (an index starting), drops it, so a turn never sees nodes of an older index.
 */
export class RetrievedNodeCache {
  private readonly repos = new Map<string, RepoNodeCache>();
  private readonly options: { ttlMs: number; maxEntries: number; now: () => number };

  constructor(options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}) {
    this.options = { ttlMs: options.ttlMs ?? NODE_CACHE_TTL_MS, maxEntries: options.maxEntries ?? NODE_CACHE_MAX_ENTRIES, now: options.now ?? Date.now };
  }

  /** The repository's cache for this generation of its index (a fresh one when the generation changed). */
  forRepo(repoId: string, generation: string): RepoNodeCache {
    const known = this.repos.get(repoId);
    if (known && known.generation === generation) return known;
    const fresh = new RepoNodeCache(generation, this.options);
    this.repos.set(repoId, fresh);
    return fresh;
  }

  /** Drop a repository's cache (its index is changing, or it was removed). */
  invalidate(repoId: string): void {
    this.repos.delete(repoId);
  }

  /** The repository's cache figures, when it has a cache. */
  stats(repoId: string): NodeCacheStats | undefined {
    return this.repos.get(repoId)?.stats();
  }
}

/** The KnowledgeBase reads chat retrieval repeats across turns; everything else goes straight through. */
const CACHED = new Set<string>(['getFileByPath', 'getFile', 'getChunksOfFile', 'getChunkOfFileAt', 'getSymbolsAround', 'getSymbolNeighbors', 'getDependencies', 'getCoChangeNeighbors']);

/**
 * A KnowledgeBase whose reads of nodes by identity go through the repository's cache. The cache
 * outlives the connection: it is keyed by the index generation, not by this KnowledgeBase.
 */
export function withNodeCache(kb: KnowledgeBase, cache: RepoNodeCache): KnowledgeBase {
  return new Proxy(kb, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof property === 'string' && CACHED.has(property)) {
        return (...args: unknown[]) => cache.get(`${property}:${JSON.stringify(args)}`, () => method.apply(target, args));
      }
      return method.bind(target);
    },
  });
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
  return value;
}
