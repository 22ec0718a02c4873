import type { Reason } from '../../../shared/contract/reasons';
import type { SearchIndex } from '../kb/searchIndex';
import { buildMatchExpression, type ParsedQuery } from './query';
import { CHUNK_WEIGHTS, ISSUE_SHAPED, KEYWORD, PATH_WEIGHTS } from './rankingConstants';
import { chunkMatch } from './termStats';

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
export function chunkHits(index: SearchIndex, query: ParsedQuery, pool = KEYWORD.chunkPool): ChunkHit[] {
  const match = chunkMatch(index, query);
  if (!match) return [];
  const w = CHUNK_WEIGHTS;
  const weights = [w.path, w.symbolNames, w.identifiers, w.text] as const;
  let rows = index.chunkBm25(match.expression, weights, pool);
  if (rows.length === 0 && match.fallback) rows = index.chunkBm25(match.fallback, weights, pool);
  return rows.sort((a, b) => b.score - a.score);
}

/** Files whose path matches the query, with a positive BM25 score. */
export function pathHits(index: SearchIndex, query: ParsedQuery, pool = KEYWORD.pathPool): Map<number, number> {
  const match = buildMatchExpression(query);
  if (!match) return new Map();
  const rows = index.pathBm25(match, [PATH_WEIGHTS.path, PATH_WEIGHTS.pathTokens], pool);
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
    file.score = file.chunks.reduce((sum, c, i) => sum + (i === 0 ? c.score : i <= KEYWORD.nextChunks ? c.score * KEYWORD.nextChunkShare * KEYWORD.nextChunkDecay ** (i - 1) : 0), 0);
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
export function keywordFileRanking(index: SearchIndex, query: ParsedQuery): Map<number, FileHit> {
  const files = aggregateByFile(chunkHits(index, query));
  const chunkScores = normalise(new Map([...files.values()].map((f) => [f.fileId, f.score])));
  const paths = normalise(pathHits(index, query));
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
    file.score += KEYWORD.pathShare * share;
    if (share >= KEYWORD.reasonShare) file.why.push({ kind: 'path-match', detail: { score: round(share) } });
  }
  // An issue's title (its author's summary) ranked alone, added to the files the whole text matches.
  if (query.title && ISSUE_SHAPED.titleText > 0) {
    const titleFiles = aggregateByFile(chunkHits(index, query.title));
    for (const [fileId, share] of normalise(new Map([...titleFiles.values()].map((f) => [f.fileId, f.score])))) {
      const file = files.get(fileId);
      if (file) file.score += ISSUE_SHAPED.titleText * share;
    }
  }
  const best = Math.max(0, ...[...files.values()].map((f) => f.score));
  if (best > 0) for (const file of files.values()) file.score /= best;
  return files;
}

/** A score share for a reason's detail: three decimals are enough to read and keep JSON short. */
export function round(share: number): number {
  return Math.round(Math.min(1, Math.max(0, share)) * 1000) / 1000;
}
