import type { Statement } from 'better-sqlite3';
import type { Db } from '../../platform/db/open';

/**
 * The prepared statements of one connection, each prepared once, on first use: preparing costs as
 * much as running many of the small queries search makes. SQL text is the key, so callers pass
 * fixed SQL (constants and `?` parameters, never values spliced in). Plucked statements (first
 * column only) are kept apart, since `pluck()` switches a statement's mode for every caller.
 */
export class StatementCache {
  private readonly rows = new Map<string, Statement>();
  private readonly values = new Map<string, Statement>();

  constructor(private readonly db: Db) {}

  /** A statement returning rows as objects. */
  rowsOf(sql: string): Statement {
    let statement = this.rows.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.rows.set(sql, statement);
    }
    return statement;
  }

  /** A statement returning the first column only. */
  valuesOf(sql: string): Statement {
    let statement = this.values.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql).pluck();
      this.values.set(sql, statement);
    }
    return statement;
  }

  /** How many statements were prepared (tests: one per distinct SQL). */
  get size(): number {
    return this.rows.size + this.values.size;
  }
}

const caches = new WeakMap<Db, StatementCache>();

/** The one statement cache of a connection (the KnowledgeBase and the vector store share it). */
export function statementCacheOf(db: Db): StatementCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new StatementCache(db);
    caches.set(db, cache);
  }
  return cache;
}
