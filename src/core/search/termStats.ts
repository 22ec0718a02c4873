import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open';
import { quoteFts, type ParsedQuery } from './query';
import { COMMON_TERMS } from './rankingConstants';

const CACHE_LIMIT = 5000;

interface Stats {
  dataVersion: number;
  chunks: number;
  df: Map<string, number>;
  testFiles: Set<number>;
}

const perDb = new WeakMap<Db, Stats>();
const statements = new WeakMap<Db, Map<string, Statement>>();

/** A prepared statement, cached per connection (preparing costs as much as running many of these queries). */
export function prep(db: Db, sql: string): Statement {
  let cache = statements.get(db);
  if (!cache) {
    cache = new Map();
    statements.set(db, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

/**
 * Per-connection caches (chunk count, document frequency per query term, test file ids), thrown
 * away when another connection committed (PRAGMA data_version changes), e.g. after a re-index.
 */
export function statsFor(db: Db): Stats {
  const dataVersion = db.pragma('data_version', { simple: true }) as number;
  let stats = perDb.get(db);
  if (!stats || stats.dataVersion !== dataVersion) {
    if (!stats) tuneForReading(db);
    stats = {
      dataVersion,
      chunks: db.prepare('select count(*) from chunks').pluck().get() as number,
      df: new Map(),
      testFiles: new Set(db.prepare('select id from files where is_test = 1').pluck().all() as number[]),
    };
    perDb.set(db, stats);
  }
  return stats;
}

/**
 * Memory-map the file and enlarge the page cache of a connection that searches: ranking touches
 * FTS doclists and chunk rows all over the file, and page-cache misses dominated the tail latency.
 */
function tuneForReading(db: Db): void {
  db.pragma('mmap_size = 268435456');
  db.pragma('cache_size = -32768');
}

/** How many chunks contain a term (stemmed by FTS5 like the index), cached per connection. */
export function documentFrequency(db: Db, term: string, prefix: boolean): number {
  const stats = statsFor(db);
  const key = prefix ? `${term}*` : term;
  let df = stats.df.get(key);
  if (df === undefined) {
    df = prep(db, 'select count(*) from chunks_fts where chunks_fts match ?').pluck().get(quoteTerm(term, prefix)) as number;
    if (stats.df.size >= CACHE_LIMIT) stats.df.clear();
    stats.df.set(key, df);
  }
  return df;
}

/** Chunk frequency above which a term counts as common (see {@link chunkMatch}); `share` of all chunks, default `COMMON_TERMS.share`. */
export function commonTermThreshold(db: Db, share: number = COMMON_TERMS.share): number {
  return Math.max(COMMON_TERMS.minDocs, statsFor(db).chunks * share);
}

/** One term as an FTS5 expression: a quoted literal, `"term" *` for a prefix. */
export function quoteTerm(term: string, prefix: boolean): string {
  return prefix ? `${quoteFts(term)} *` : quoteFts(term);
}

/** The FTS5 expression for the chunk search, chosen by term rarity. */
export interface ChunkMatch {
  expression: string;
  /** Terms left out because they are too common to tell chunks apart (and slow to rank). */
  dropped: string[];
  /** When `expression` ANDs common terms and finds nothing: OR of the two rarest. */
  fallback?: string;
}

/**
 * Build the chunk MATCH expression: OR over the terms that are rare enough, since BM25 gives very
 * common terms (`get`, `return`, `self`) little weight but ranking their thousands of chunks costs
 * most of the query time. When every term is common, AND them instead. Null when nothing is left.
 */
export function chunkMatch(db: Db, query: ParsedQuery): ChunkMatch | null {
  const prefixes = new Set(query.prefixTerms);
  const terms = query.terms.filter((t) => t.length >= 2 || /[0-9]/.test(t));
  if (terms.length === 0) return null;
  const threshold = commonTermThreshold(db);
  const withDf = terms.map((t) => ({ term: t, prefix: prefixes.has(t), df: documentFrequency(db, t, prefixes.has(t)) })).filter((t) => t.df > 0);
  if (withDf.length === 0) return null;
  const phrase = (t: { term: string; prefix: boolean }) => quoteTerm(t.term, t.prefix);
  const rare = withDf.filter((t) => t.df <= threshold);
  if (rare.length > 0) {
    return { expression: rare.map(phrase).join(' OR '), dropped: withDf.filter((t) => t.df > threshold).map((t) => t.term) };
  }
  const rarest = [...withDf].sort((a, b) => a.df - b.df).slice(0, 3);
  return {
    expression: rarest.map(phrase).join(' AND '),
    dropped: withDf.filter((t) => !rarest.includes(t)).map((t) => t.term),
    fallback: rarest.length > 1 ? rarest.slice(0, 2).map(phrase).join(' OR ') : undefined,
  };
}
