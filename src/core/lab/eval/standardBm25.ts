import { splitIdentifier } from '../../knowledge/search/query';

/** BM25's term-frequency saturation and length normalisation: the usual defaults (Lucene, Pyserini, rank_bm25). */
export const STANDARD_BM25 = { k1: 1.2, b: 0.75 } as const;

/** English words too common to rank by (a short, conventional list; code words are all kept). */
const STOP_WORDS = new Set(
  ('a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
    'me my no not of on or our she should so that the their them then there these they this those to was we were what ' +
    'when where which while who why will with would you your').split(' '),
);

/**
 * The tokens of a text as the standard reference sees them: every run of letters and digits (and
 * underscores), lower-cased, with each identifier also split into its words (`getUserName` →
 * getusername, get, user, name; `parse_headers` → parse_headers, parse, headers). English stop
 * words and one-character tokens are dropped; no stemming.
 */
export function standardTokens(text: string): string[] {
  const out: string[] = [];
  for (const word of text.match(/[\p{L}\p{N}_]+/gu) ?? []) {
    const lower = word.toLowerCase();
    const parts = splitIdentifier(word);
    if (parts.length !== 1 || parts[0] !== lower) pushToken(out, lower.replace(/^_+|_+$/g, ''));
    for (const part of parts) pushToken(out, part);
  }
  return out;
}

function pushToken(out: string[], token: string): void {
  if (token.length >= 2 && !STOP_WORDS.has(token)) out.push(token);
}

/** The tokens of a path: its folder and file names split like identifiers (`src/http_client.py` → src, http_client, http, client, py). */
export function pathTokens(path: string): string[] {
  return standardTokens(path.replace(/[/.\\-]/g, ' '));
}

interface Doc {
  language: string;
  length: number;
  terms: Map<string, number>;
}

/**
 * A standard BM25 ranking of source files, the usual baseline of code retrieval papers: identifier
 * splitting (camelCase, snake_case), the file's path tokens in its text, k1 1.2, b 0.75 and
 * Lucene's non-negative IDF, log(1 + (N − df + 0.5) / (df + 0.5)). N, df and the mean length come
 * from the files of the ranked language families alone, as if the corpus held only them. Query
 * terms count once each. Held in memory and updated per file, so an evaluation run re-reads only
 * the files that changed between two checkouts.
 */
export class StandardBm25 {
  private readonly docs = new Map<string, Doc>();
  /** term → path → term frequency. */
  private readonly postings = new Map<string, Map<string, number>>();

  /** Add or replace one file. */
  set(path: string, language: string, body: string): void {
    this.remove(path);
    const tokens = [...pathTokens(path), ...standardTokens(body)];
    const terms = new Map<string, number>();
    for (const token of tokens) terms.set(token, (terms.get(token) ?? 0) + 1);
    this.docs.set(path, { language, length: tokens.length, terms });
    for (const [term, tf] of terms) {
      let posting = this.postings.get(term);
      if (!posting) this.postings.set(term, (posting = new Map()));
      posting.set(path, tf);
    }
  }

  has(path: string): boolean {
    return this.docs.has(path);
  }

  remove(path: string): void {
    const doc = this.docs.get(path);
    if (!doc) return;
    for (const term of doc.terms.keys()) {
      const posting = this.postings.get(term);
      posting?.delete(path);
      if (posting?.size === 0) this.postings.delete(term);
    }
    this.docs.delete(path);
  }

  /** The files of the given language families ranked for a text, best first (at most `limit`; ties by path). */
  rank(text: string, languages: ReadonlySet<string>, limit = 50): string[] {
    return [...this.scores(text, languages)]
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
      .slice(0, limit)
      .map(([path]) => path);
  }

  /** The BM25 score of every file of the given language families that shares a term with the text. */
  scores(text: string, languages: ReadonlySet<string>): Map<string, number> {
    let count = 0;
    let total = 0;
    for (const doc of this.docs.values()) {
      if (!languages.has(doc.language)) continue;
      count += 1;
      total += doc.length;
    }
    const scores = new Map<string, number>();
    if (count === 0) return scores;
    const average = total / count;
    const { k1, b } = STANDARD_BM25;
    for (const term of new Set(standardTokens(text))) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const hits = [...posting].filter(([path]) => languages.has(this.docs.get(path)!.language));
      if (hits.length === 0) continue;
      const idf = Math.log(1 + (count - hits.length + 0.5) / (hits.length + 0.5));
      for (const [path, tf] of hits) {
        const length = this.docs.get(path)!.length;
        const score = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / average));
        scores.set(path, (scores.get(path) ?? 0) + score);
      }
    }
    return scores;
  }
}
