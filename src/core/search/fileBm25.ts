import type { Db } from '../db/open';
import type { FilePrior } from './graph';
import { round, type FileHit } from './keyword';
import type { ParsedQuery } from './query';
import { commonTermThreshold, documentFrequency, prep, statsFor } from './termStats';

/** BM25 parameters of the file-level ranking (the usual defaults). */
const K1 = 1.2;
const B = 0.75;
/** Distinct query words considered (a pasted stack trace should not cost a query per word). */
const MAX_TERMS = 32;

/**
 * Whole-file BM25 over the text of each file, computed from the chunk index (chunks do not
 * overlap, so a file's text is the union of its chunks' text). Chunk BM25 rewards the single best
 * chunk; this rewards files that use the task's words often and many of them anywhere, which is
 * what a task spread over a file's functions looks like. Term frequencies come from an FTS5
 * `instance` vocabulary of `chunks_fts`; query words are stemmed by the same tokenizer as the
 * index. Words in a large share of all chunks are left out, as in the chunk search (little weight,
 * high cost). Returns positive scores per file id.
 */
export function fileBm25(db: Db, query: ParsedQuery): Map<number, number> {
  const { sizes, averageSize } = fileSizes(db);
  if (sizes.size === 0) return new Map();
  const threshold = commonTermThreshold(db);
  ensureHelpers(db);
  const perFile = prep(
    db,
    `select c.file_id as fileId, count(*) as tf from temp.cra_chunk_instances v join chunks c on c.id = v.doc
     where v.term = ? and v.col = 'text' group by c.file_id`,
  );
  const scores = new Map<number, number>();
  for (const term of stemmedWords(db, query.raw).slice(0, MAX_TERMS)) {
    if (term.length < 2 || documentFrequency(db, term, false) > threshold) continue;
    const rows = perFile.all(term) as Array<{ fileId: number; tf: number }>;
    const idf = Math.log(1 + (sizes.size - rows.length + 0.5) / (rows.length + 0.5));
    for (const { fileId, tf } of rows) {
      const length = (sizes.get(fileId) ?? averageSize) / averageSize;
      const part = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + B * length));
      scores.set(fileId, (scores.get(fileId) ?? 0) + part);
    }
  }
  return scores;
}

/** Share of the best final score that the best whole-file BM25 match adds (late fusion). */
export const FILE_BM25_SHARE = { value: 0.3 };

/**
 * Fuse whole-file BM25 into a finished ranking: each file gains its BM25 score relative to the
 * best one × {@link FILE_BM25_SHARE} × the best score in the ranking, times its prior (so demoted
 * tests and documentation stay demoted). Files that only this ranker finds enter the ranking.
 */
export function applyFileBm25(db: Db, query: ParsedQuery, files: Map<number, FileHit>, prior: FilePrior): void {
  const scores = fileBm25(db, query);
  const bestBm25 = Math.max(0, ...scores.values());
  if (bestBm25 <= 0) return;
  const top = Math.max(0, ...[...files.values()].map((f) => f.score)) || 1;
  for (const [fileId, score] of scores) {
    let file = files.get(fileId);
    if (!file) {
      file = { fileId, score: 0, chunks: [], why: [] };
      files.set(fileId, file);
    }
    const share = score / bestBm25;
    file.score += top * FILE_BM25_SHARE.value * share * prior(fileId);
    if (share >= 0.5) file.why.push({ kind: 'file-text-match', detail: { score: round(share) } });
  }
}

const prepared = new WeakSet<Db>();

/** Create this connection's temporary helper tables once (allowed on read-only connections too). */
function ensureHelpers(db: Db): void {
  if (prepared.has(db)) return;
  db.exec(`create virtual table if not exists temp.cra_chunk_instances using fts5vocab(main, 'chunks_fts', 'instance');
           create virtual table if not exists temp.cra_stemmer using fts5(text, tokenize='porter unicode61');
           create virtual table if not exists temp.cra_stemmer_terms using fts5vocab(temp, 'cra_stemmer', 'row');`);
  prepared.add(db);
}

/** The distinct words of a text as the index's tokenizer (porter unicode61) turns them into terms. */
export function stemmedWords(db: Db, text: string): string[] {
  ensureHelpers(db);
  prep(db, 'insert into temp.cra_stemmer(rowid, text) values (1, ?)').run(text);
  try {
    return prep(db, 'select term from temp.cra_stemmer_terms').pluck().all() as string[];
  } finally {
    prep(db, 'delete from temp.cra_stemmer').run();
  }
}

const sizeCache = new WeakMap<Db, { dataVersion: number; sizes: Map<number, number>; averageSize: number }>();

/** Byte size of every file that has chunks and their mean, cached per connection until the database changes. */
function fileSizes(db: Db): { sizes: Map<number, number>; averageSize: number } {
  const { dataVersion } = statsFor(db);
  let cached = sizeCache.get(db);
  if (!cached || cached.dataVersion !== dataVersion) {
    const rows = prep(db, 'select id, size from files where id in (select distinct file_id from chunks)').all() as Array<{ id: number; size: number }>;
    const sizes = new Map(rows.map((r) => [r.id, Math.max(1, r.size)]));
    const total = rows.reduce((sum, r) => sum + Math.max(1, r.size), 0);
    cached = { dataVersion, sizes, averageSize: rows.length > 0 ? total / rows.length : 1 };
    sizeCache.set(db, cached);
  }
  return cached;
}
