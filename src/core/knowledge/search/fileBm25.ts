import type { Db } from '../../platform/db/open';
import { KnowledgeBase } from '../kb/knowledgeBase';
import type { ChunkedFile, SearchIndex } from '../kb/searchIndex';
import { fileIntentOf, fileKindOf, namedByQuery } from './fileKinds';
import type { FilePrior } from './graph';
import { round, type FileHit } from './keyword';
import { withoutStopWords, type ParsedQuery } from './query';
import { FILE_BM25, KEYWORD } from './rankingConstants';
import { commonTermThreshold, documentFrequency } from './termStats';

/** The files whole-file BM25 ranks, with their sizes: its IDF and mean length come from them alone. */
interface Corpus {
  sizes: Map<number, number>;
  averageSize: number;
}

/** Per snapshot of the index's files: code files, and the other files (docs, config, tests) by kind. */
interface Split {
  code: readonly ChunkedFile[];
  tests: readonly ChunkedFile[];
  other: readonly ChunkedFile[];
  corpora: Map<string, Corpus>;
}

const splits = new WeakMap<readonly ChunkedFile[], Split>();

/**
 * Documentation and configuration: the files outside whole-file BM25's code corpus. Vendored,
 * generated, declaration and example files stay in it (their demotion is the kind prior's): taking
 * them out moved IDF and mean length and cost werkzeug R@1 .421 → .371 in `cra eval --commits 40`
 * (docs/search.md).
 */
function isProseOrConfig(file: { path: string; language: string }): boolean {
  const kind = fileKindOf(file.path, file.language);
  return kind === 'docs' || kind === 'config';
}

function corpus(files: readonly ChunkedFile[]): Corpus {
  const total = files.reduce((sum, f) => sum + f.size, 0);
  return { sizes: new Map(files.map((f) => [f.id, f.size])), averageSize: files.length > 0 ? total / files.length : 1 };
}

/**
 * The corpus for a query: with `FILE_BM25.codeOnly`, code files, tests when the query asks about
 * tests, and documentation or configuration files it names (`README.md`, `.eslintrc.json` by
 * "eslint"), else every file with chunks. A kind word ("docs: fix a typo in the rule") does not add
 * every documentation page: "docs:" heads many commit messages of code changes, and a task about
 * docs still finds them by the chunk search, undemoted. On a repository with thousands of small test files, those set the
 * mean length, and every real source file looked long and lost its matches to length normalisation.
 */
function corpusOf(index: SearchIndex, query: ParsedQuery): Corpus {
  const files = index.chunkedFiles();
  let split = splits.get(files);
  if (!split) {
    const code: ChunkedFile[] = [];
    const tests: ChunkedFile[] = [];
    const other: ChunkedFile[] = [];
    for (const f of files) {
      if (isProseOrConfig(f)) other.push(f);
      else (f.isTest ? tests : code).push(f);
    }
    split = { code, tests, other, corpora: new Map() };
    splits.set(files, split);
  }
  if (!FILE_BM25.codeOnly) return (split.corpora.get('all') ?? split.corpora.set('all', corpus(files)).get('all'))!;
  const intent = fileIntentOf(query);
  const wanted = split.other.filter((f) => namedByQuery(f.path, intent));
  const key = query.mentionsTests ? 'code+tests' : 'code';
  let base = split.corpora.get(key);
  if (!base) {
    base = corpus(query.mentionsTests ? [...split.code, ...split.tests] : split.code);
    split.corpora.set(key, base);
  }
  return wanted.length === 0 ? base : corpus([...(query.mentionsTests ? [...split.code, ...split.tests] : split.code), ...wanted]);
}

/**
 * Whole-file BM25 over the text of each file, computed from the chunk index (chunks do not
 * overlap, so a file's text is the union of its chunks' text). Chunk BM25 rewards the single best
 * chunk; this rewards files that use the task's words often and many of them anywhere, which is
 * what a task spread over a file's functions looks like. Term frequencies come from an FTS5
 * `instance` vocabulary of `chunks_fts`; query words are stemmed by the same tokenizer as the
 * index, the first `maxTerms` in the text's order. Words in a large share of all chunks are left
 * out, as in the chunk search (little weight, high cost). Returns positive scores per file id.
 */
export function fileBm25(target: Db | KnowledgeBase, query: ParsedQuery): Map<number, number> {
  const index = KnowledgeBase.of(target).searchIndex;
  const { sizes, averageSize } = corpusOf(index, query);
  if (sizes.size === 0) return new Map();
  const { k1, b } = FILE_BM25;
  const threshold = commonTermThreshold(index, FILE_BM25.commonShare);
  const scores = new Map<number, number>();
  let kept = 0;
  for (const term of index.stemmedWords(FILE_BM25.stopWords ? withoutStopWords(query.text) : query.text)) {
    if (kept >= FILE_BM25.maxTerms) break;
    if (term.length < 2 || documentFrequency(index, term, false) > threshold) continue;
    kept++;
    const { fileIds, counts } = index.termFrequencyPerFile(term);
    let n = 0;
    for (const fileId of fileIds) if (sizes.has(fileId)) n++;
    if (n === 0) continue;
    const idf = Math.log(1 + (sizes.size - n + 0.5) / (n + 0.5));
    for (let i = 0; i < fileIds.length; i++) {
      const size = sizes.get(fileIds[i]!);
      if (size === undefined) continue;
      const tf = counts[i]!;
      const part = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * size) / averageSize));
      scores.set(fileIds[i]!, (scores.get(fileIds[i]!) ?? 0) + part);
    }
  }
  return scores;
}

/**
 * Fuse whole-file BM25 into a finished ranking: each file gains its BM25 score relative to the
 * best one × `FILE_BM25.share` × the best score in the ranking, times its prior (so demoted
 * tests and documentation stay demoted). Files that only this ranker finds enter the ranking.
 * Code files the query names (`named`; not tests, docs or configuration, which a name such as
 * `package.json` or a rule's name matches by the dozen) count as the best match: the task's naming
 * them says more than word counts, and a short file named in the task would otherwise fall behind
 * long files that use its words.
 */
export function applyFileBm25(kb: KnowledgeBase, query: ParsedQuery, files: Map<number, FileHit>, prior: FilePrior, named: ReadonlySet<number> = new Set()): void {
  const scores = fileBm25(kb, query);
  const bestBm25 = Math.max(0, ...scores.values());
  if (bestBm25 <= 0 && named.size === 0) return;
  const top = Math.max(0, ...[...files.values()].map((f) => f.score)) || 1;
  const index = kb.searchIndex;
  const { testFiles } = index.searchStats();
  const namedCode = [...named].filter((id) => {
    const file = index.pathAndLanguage(id);
    return file !== undefined && !testFiles.has(id) && !isProseOrConfig(file);
  });
  const best = new Set(namedCode);
  for (const fileId of new Set([...scores.keys(), ...namedCode])) {
    let file = files.get(fileId);
    if (!file) {
      file = { fileId, score: 0, chunks: [], why: [] };
      files.set(fileId, file);
    }
    const share = best.has(fileId) ? 1 : (scores.get(fileId) ?? 0) / bestBm25;
    file.score += top * FILE_BM25.share * share * prior(fileId);
    if (share >= KEYWORD.reasonShare && scores.has(fileId)) file.why.push({ kind: 'file-text-match', detail: { score: round((scores.get(fileId) ?? 0) / bestBm25) } });
  }
}

/** The distinct words of a text as the index's tokenizer (porter unicode61) turns them into terms. */
export function stemmedWords(target: Db | KnowledgeBase, text: string): string[] {
  return KnowledgeBase.of(target).searchIndex.stemmedWords(text);
}
