import type { Reason } from '../../shared/contract/reasons';
import type { Db } from '../db/open';
import { buildMatchExpression, type ParsedQuery } from './query';
import { chunkMatch, prep } from './termStats';

/**
 * BM25 column weights of `chunks_fts(path, symbol_names, identifiers, text)`: a term in a symbol
 * name says far more about a chunk than the same term in its body.
 */
export const CHUNK_WEIGHTS = { path: 2, symbolNames: 6, identifiers: 1.5, text: 1 } as const;
/** BM25 column weights of `paths_fts(path, path_tokens)`. */
export const PATH_WEIGHTS = { path: 1, pathTokens: 2 } as const;
/** How many chunks and paths BM25 considers before aggregating per file. */
const CHUNK_POOL = 300;
const PATH_POOL = 100;
/** Weight of the path ranking relative to the chunk ranking (both normalised to the best = 1). */
const PATH_SHARE = 0.35;

/** One chunk that matched, with its BM25 score made positive (higher is better). */
export interface ChunkHit {
  chunkId: number;
  fileId: number;
  score: number;
}

/** Per-file evidence gathered by the rankers and boosts. */
export interface FileHit {
  fileId: number;
  score: number;
  /** Matching chunks of the file, best first. */
  chunks: ChunkHit[];
  /** Why the file is in the ranking, in the order the signals added it. */
  why: Reason[];
}

/** The best chunks for the query by weighted BM25 (very common terms left out, see `chunkMatch`). */
export function chunkHits(db: Db, query: ParsedQuery, pool = CHUNK_POOL): ChunkHit[] {
  const match = chunkMatch(db, query);
  if (!match) return [];
  const w = CHUNK_WEIGHTS;
  const statement = prep(db, 
    `select f.rowid as chunkId, c.file_id as fileId, -f.s as score
     from (select rowid, bm25(chunks_fts, ${w.path}, ${w.symbolNames}, ${w.identifiers}, ${w.text}) as s
           from chunks_fts where chunks_fts match ? order by s limit ?) f
     join chunks c on c.id = f.rowid`,
  );
  let rows = statement.all(match.expression, pool) as ChunkHit[];
  if (rows.length === 0 && match.fallback) rows = statement.all(match.fallback, pool) as ChunkHit[];
  return rows.sort((a, b) => b.score - a.score);
}

/** Files whose path matches the query, with a positive BM25 score. */
export function pathHits(db: Db, query: ParsedQuery, pool = PATH_POOL): Map<number, number> {
  const match = buildMatchExpression(query);
  if (!match) return new Map();
  const rows = prep(db, 
      `select rowid as fileId, -bm25(paths_fts, ${PATH_WEIGHTS.path}, ${PATH_WEIGHTS.pathTokens}) as score
       from paths_fts where paths_fts match ? order by bm25(paths_fts, ${PATH_WEIGHTS.path}, ${PATH_WEIGHTS.pathTokens}) limit ?`,
    )
    .all(match, pool) as Array<{ fileId: number; score: number }>;
  return new Map(rows.map((r) => [r.fileId, r.score]));
}

/**
 * Group chunk hits per file: the best chunk counts fully, the next few with a damped share, so a
 * file with one excellent chunk beats a file with many weak ones but several good chunks add up.
 */
export function aggregateByFile(hits: readonly ChunkHit[]): Map<number, FileHit> {
  const files = new Map<number, FileHit>();
  for (const hit of hits) {
    let file = files.get(hit.fileId);
    if (!file) {
      file = { fileId: hit.fileId, score: 0, chunks: [], why: [] };
      files.set(hit.fileId, file);
    }
    file.chunks.push(hit);
  }
  for (const file of files.values()) {
    file.chunks.sort((a, b) => b.score - a.score);
    file.score = file.chunks.reduce((sum, c, i) => sum + (i === 0 ? c.score : i < 4 ? c.score * 0.25 * 0.6 ** (i - 1) : 0), 0);
  }
  return files;
}

/** Divide every score by the best one, so rankings of different origin share a 0..1 scale. */
export function normalise(scores: Map<number, number>): Map<number, number> {
  const best = Math.max(0, ...scores.values());
  if (best <= 0) return new Map([...scores.keys()].map((k) => [k, 0]));
  return new Map([...scores.entries()].map(([k, v]) => [k, v / best]));
}

/** The BM25 file ranking: chunk evidence per file plus a share of the path ranking, best = 1. */
export function keywordFileRanking(db: Db, query: ParsedQuery): Map<number, FileHit> {
  const files = aggregateByFile(chunkHits(db, query));
  const chunkScores = normalise(new Map([...files.values()].map((f) => [f.fileId, f.score])));
  const paths = normalise(pathHits(db, query));
  for (const [fileId, share] of chunkScores) {
    const file = files.get(fileId)!;
    file.score = share;
    file.why.push({ kind: 'text-match', detail: { score: round(share) } });
  }
  for (const [fileId, share] of paths) {
    let file = files.get(fileId);
    if (!file) {
      file = { fileId, score: 0, chunks: [], why: [] };
      files.set(fileId, file);
    }
    file.score += PATH_SHARE * share;
    if (share >= 0.5) file.why.push({ kind: 'path-match', detail: { score: round(share) } });
  }
  const best = Math.max(0, ...[...files.values()].map((f) => f.score));
  if (best > 0) for (const file of files.values()) file.score /= best;
  return files;
}

/** A score share for a reason's detail: three decimals are enough to read and keep JSON short. */
export function round(share: number): number {
  return Math.round(Math.min(1, Math.max(0, share)) * 1000) / 1000;
}
