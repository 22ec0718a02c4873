import type { SearchIndex } from '../kb/searchIndex';
import { quoteFts, type ParsedQuery } from './query';
import { COMMON_TERMS } from './rankingConstants';

const CACHE_LIMIT = 5000;

/** How many chunks contain a term (stemmed by FTS5 like the index), cached per connection until it changes. */
export function documentFrequency(index: SearchIndex, term: string, prefix: boolean): number {
  const stats = index.searchStats();
  const key = prefix ? `${term}*` : term;
  let df = stats.df.get(key);
  if (df === undefined) {
    df = index.countChunksMatching(quoteTerm(term, prefix));
    if (stats.df.size >= CACHE_LIMIT) stats.df.clear();
    stats.df.set(key, df);
  }
  return df;
}

/** Chunk frequency above which a term counts as common (see {@link chunkMatch}); `share` of all chunks, default `COMMON_TERMS.share`. */
export function commonTermThreshold(index: SearchIndex, share: number = COMMON_TERMS.share): number {
  return Math.max(COMMON_TERMS.minDocs, index.searchStats().chunks * share);
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
export function chunkMatch(index: SearchIndex, query: ParsedQuery): ChunkMatch | null {
  const prefixes = new Set(query.prefixTerms);
  const terms = query.terms.filter((t) => t.length >= 2 || /[0-9]/.test(t));
  if (terms.length === 0) return null;
  const threshold = commonTermThreshold(index);
  const withDf = terms.map((t) => ({ term: t, prefix: prefixes.has(t), df: documentFrequency(index, t, prefixes.has(t)) })).filter((t) => t.df > 0);
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
