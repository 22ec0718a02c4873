import type { KnowledgeBase } from '../kb/knowledgeBase';

/** How long a retrieved node stays cached at most, even while the index does not change. */
export const NODE_CACHE_TTL_MS = 10 * 60_000;
/** Entries kept per repository before the oldest go. */
export const NODE_CACHE_ENTRIES = 20_000;

/**
 * A repository's cache of retrieved nodes (issue #14 item 9): what graph expansion found around a
 * file's line and the bodies fetched by identity, shared by the turns of every conversation of the
 * repository. An entry lives at most `ttlMs`; all of them are dropped when the index changes (its
 * data_version moves, or another reader — a replaced index file — asks). Values are treated as
 * read-only by their users.
 */
export class NodeCache {
  private readonly entries = new Map<string, { at: number; value: unknown }>();
  private reader: KnowledgeBase | undefined;
  private version = -1;

  constructor(
    private readonly ttlMs = NODE_CACHE_TTL_MS,
    private readonly maxEntries = NODE_CACHE_ENTRIES,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /**
   * The cache as valid for this reader now: call once per step that reads through it (the index
   * may change between steps of a turn).
   */
  at(kb: KnowledgeBase): NodeCacheView {
    const version = kb.searchIndex.searchStats().dataVersion;
    if (kb !== this.reader || version !== this.version) {
      this.entries.clear();
      this.reader = kb;
      this.version = version;
    }
    return { get: (key, load) => this.get(key, load) };
  }

  /** Entries held (for tests and the trace). */
  get size(): number {
    return this.entries.size;
  }

  private get<T>(key: string, load: () => T): T {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value as T;
    const value = load();
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { at: now, value });
    return value;
  }
}

/** The cache of one step: the value under `key`, loaded (and kept) when absent or expired. */
export interface NodeCacheView {
  get<T>(key: string, load: () => T): T;
}

/** A view that keeps nothing (no cache given). */
export const NO_NODE_CACHE: NodeCacheView = { get: (_key, load) => load() };
