import type { Db } from '../db/open';
import { KnowledgeBase } from '../kb/knowledgeBase';
import type { FilePrior } from './graph';
import { round, type FileHit } from './keyword';
import type { ParsedQuery } from './query';
import { FILE_BM25, KEYWORD } from './rankingConstants';
import { commonTermThreshold, documentFrequency } from './termStats';

/** BM25 parameters of the file-level ranking. */
const { k1: K1, b: B } = FILE_BM25;

/**
 * Whole-file BM25 over the text of each file, computed from the chunk index (chunks do not
 * overlap, so a file's text is the union of its chunks' text). Chunk BM25 rewards the single best
 * chunk; this rewards files that use the task's words often and many of them anywhere, which is
 * what a task spread over a file's functions looks like. Term frequencies come from an FTS5
 * `instance` vocabulary of `chunks_fts`; query words are stemmed by the same tokenizer as the
 * index. Words in a large share of all chunks are left out, as in the chunk search (little weight,
 * high cost). Returns positive scores per file id.
 */
export function fileBm25(target: Db | KnowledgeBase, query: ParsedQuery): Map<number, number> {
  const index = KnowledgeBase.of(target).searchIndex;
  const { sizes, averageSize } = index.fileSizes();
  if (sizes.size === 0) return new Map();
  const threshold = commonTermThreshold(index, FILE_BM25.commonShare);
  const scores = new Map<number, number>();
  for (const term of index.stemmedWords(query.raw).slice(0, FILE_BM25.maxTerms)) {
    if (term.length < 2 || documentFrequency(index, term, false) > threshold) continue;
    const rows = index.termFrequencyPerFile(term);
    const idf = Math.log(1 + (sizes.size - rows.length + 0.5) / (rows.length + 0.5));
    for (const { fileId, tf } of rows) {
      const length = (sizes.get(fileId) ?? averageSize) / averageSize;
      const part = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + B * length));
      scores.set(fileId, (scores.get(fileId) ?? 0) + part);
    }
  }
  return scores;
}

/**
 * Fuse whole-file BM25 into a finished ranking: each file gains its BM25 score relative to the
 * best one × `FILE_BM25.share` × the best score in the ranking, times its prior (so demoted
 * tests and documentation stay demoted). Files that only this ranker finds enter the ranking.
 */
export function applyFileBm25(kb: KnowledgeBase, query: ParsedQuery, files: Map<number, FileHit>, prior: FilePrior): void {
  const scores = fileBm25(kb, query);
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
    file.score += top * FILE_BM25.share * share * prior(fileId);
    if (share >= KEYWORD.reasonShare) file.why.push({ kind: 'file-text-match', detail: { score: round(share) } });
  }
}

/** The distinct words of a text as the index's tokenizer (porter unicode61) turns them into terms. */
export function stemmedWords(target: Db | KnowledgeBase, text: string): string[] {
  return KnowledgeBase.of(target).searchIndex.stemmedWords(text);
}
