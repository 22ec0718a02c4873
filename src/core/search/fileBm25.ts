import type { Db } from '../db/open';
import type { ParsedQuery } from './query';
import { commonTermThreshold, documentFrequency, prep, quoteTerm, statsFor } from './termStats';

/** BM25 parameters of the file-level ranking (the usual defaults). */
const K1 = 1.2;
const B = 0.75;

/**
 * A whole-file BM25 ranking built from the chunk index: a file's term frequency is the number of
 * its chunks that contain the term, its length is its number of chunks, and a term's document
 * frequency is the number of files containing it. Chunk BM25 rewards the one chunk that matches
 * best; this rewards files that match many of the query's terms anywhere, which is what a task
 * description spread over a file's functions looks like. Very common terms are left out as in the
 * chunk search. Returns positive scores per file id (empty when nothing matches).
 */
export function fileBm25(db: Db, query: ParsedQuery): Map<number, number> {
  const stats = statsFor(db);
  const { chunksPerFile, averageChunks } = fileLengths(db);
  const files = chunksPerFile.size;
  if (files === 0) return new Map();
  const prefixes = new Set(query.prefixTerms);
  const threshold = commonTermThreshold(db);
  const perFile = prep(
    db,
    `select c.file_id as fileId, count(*) as tf
     from chunks_fts f join chunks c on c.id = f.rowid where chunks_fts match ? group by c.file_id`,
  );
  const scores = new Map<number, number>();
  for (const term of query.terms.filter((t) => t.length >= 2 || /[0-9]/.test(t))) {
    const prefix = prefixes.has(term);
    const df = documentFrequency(db, term, prefix);
    if (df === 0 || (df > threshold && stats.chunks > 0)) continue;
    const rows = perFile.all(quoteTerm(term, prefix)) as Array<{ fileId: number; tf: number }>;
    const idf = Math.log(1 + (files - rows.length + 0.5) / (rows.length + 0.5));
    for (const { fileId, tf } of rows) {
      const length = chunksPerFile.get(fileId) ?? averageChunks;
      const part = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / averageChunks));
      scores.set(fileId, (scores.get(fileId) ?? 0) + part);
    }
  }
  return scores;
}

const lengths = new WeakMap<Db, { dataVersion: number; chunksPerFile: Map<number, number>; averageChunks: number }>();

/** Chunks per file and their mean, cached per connection until the database changes. */
function fileLengths(db: Db): { chunksPerFile: Map<number, number>; averageChunks: number } {
  const { dataVersion } = statsFor(db);
  let cached = lengths.get(db);
  if (!cached || cached.dataVersion !== dataVersion) {
    const rows = prep(db, 'select file_id as fileId, count(*) as n from chunks group by file_id').all() as Array<{ fileId: number; n: number }>;
    const chunksPerFile = new Map(rows.map((r) => [r.fileId, r.n]));
    const total = rows.reduce((sum, r) => sum + r.n, 0);
    cached = { dataVersion, chunksPerFile, averageChunks: rows.length > 0 ? total / rows.length : 1 };
    lengths.set(db, cached);
  }
  return cached;
}
