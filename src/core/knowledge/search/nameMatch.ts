import type { SearchIndex } from '../kb/searchIndex';
import type { FileHit } from './keyword';
import { splitIdentifier, type ParsedQuery } from './query';
import { NAME_MATCH } from './rankingConstants';

/**
 * Files the query names. A task often spells out the file it is about, in its own words or as the
 * file's name: "`class-methods-use-this`" ↔ lib/rules/class-methods-use-this.js, "version utils"
 * ↔ src/util/VersionUtils.ts, "`serialization.js`" ↔ lib/shared/serialization.js. BM25 sees only
 * the separate words, which are common (`class`, `use`, `this`), so such a file ranked far down.
 * An issue names files in two more ways (issue #27): a link to the file on its source host, and a
 * Python module's dotted name (`starlette.middleware.base` ↔ starlette/middleware/base.py). Both
 * take `NAME_MATCH.share` like a spelled-out path, no constant of their own: on the 215-issue
 * development set they fire on 33 issues and lift macro Acc@1/5/10 .514/.827/.893 → .541/.830/.896,
 * down on no repository at any k; of the commit-message tasks they fire on 1 of 360, already first
 * (docs/evaluation.md).
 */

/** A file name as words: kebab, snake and camel case all split, the extension(s) left out. */
export function stemWords(path: string): string[] {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const stem = base.replace(/(\.d)?\.[A-Za-z0-9]{1,6}$/, '');
  return splitIdentifier(stem);
}

/** What a query says about file names: word runs (joined, lower case) and spelled-out paths. */
export interface NamedFiles {
  /** Every run of 2..`NAME_MATCH.maxWords` consecutive words of the query, joined without separators → the words. */
  phrases: Map<string, string>;
  /** Words that look like a file path or name with an extension (`languages/js/index.js`), and the paths of file links, lower case. */
  paths: string[];
  /** Dotted Python names of the prose, as candidate module files, longest first: a.b.c → a/b/c.py, a/b.py. */
  modules: string[][];
}

/** Read the query for file names: consecutive words in any spelling, and paths written out. */
export function namedFiles(query: ParsedQuery): NamedFiles {
  const words = splitIdentifier(query.text);
  const phrases = new Map<string, string>();
  for (let i = 0; i < words.length; i++) {
    for (let n = 2; n <= NAME_MATCH.maxWords && i + n <= words.length; n++) phrases.set(words.slice(i, i + n).join(''), words.slice(i, i + n).join(' '));
  }
  const paths = (query.text.match(/[A-Za-z0-9_./-]+/g) ?? [])
    .map((w) => w.replace(/^[./]+|[.]+$/g, '').toLowerCase())
    .filter((w) => /\.[a-z][a-z0-9]{0,5}$/.test(w) && /[a-z]/.test(w.slice(0, w.lastIndexOf('.'))));
  const modules = query.modules.map((name) => {
    const parts = name.split('.');
    // Two parts at least: the first part alone (`os` of `os.path`) would name any file of that name.
    const candidates: string[] = [];
    for (let n = parts.length; n >= 2; n--) candidates.push(`${parts.slice(0, n).join('/')}.py`);
    return candidates;
  });
  return { phrases, paths: [...new Set([...paths, ...query.linkedPaths])], modules };
}

/**
 * A file name's stem words joined ({@link stemWords}`(path).join('')`) without splitting it: the
 * words are the stem's letters and digits, lower case, in order, so joined they are just those.
 */
export function joinedStem(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.replace(/(\.d)?\.[A-Za-z0-9]{1,6}$/, '').replace(/[^A-Za-z0-9]+/g, '').toLowerCase();
}

interface NameIndex {
  dataVersion: number;
  /**
   * Joined stem words → the files, in index order. Every file is listed; the ones whose stem is a
   * single word are left out when looked up: splitting each of a repository's names into words
   * at the first search cost more than the rest of the index (`cra search`, issue #25).
   */
  byStem: Map<string, Array<{ id: number; path: string }>>;
  indexed: Array<{ id: number; path: string }>;
  /** `indexed` with lower-case paths, made when a query names a path or a module. */
  lowerCase?: Array<{ id: number; path: string }>;
}

const cache = new WeakMap<SearchIndex, NameIndex>();

/** File names as joined words, per connection until the database changes. */
function nameIndex(search: SearchIndex): NameIndex {
  const { dataVersion } = search.searchStats();
  let index = cache.get(search);
  if (!index || index.dataVersion !== dataVersion) {
    const indexed = search.indexedPaths();
    const byStem = new Map<string, Array<{ id: number; path: string }>>();
    for (const file of indexed) {
      const key = joinedStem(file.path);
      (byStem.get(key) ?? byStem.set(key, []).get(key)!).push(file);
    }
    index = { dataVersion, byStem, indexed };
    cache.set(search, index);
  }
  return index;
}

/** The files whose stem words, two or more, joined are `phrase`. */
function filesWithStem(index: NameIndex, phrase: string): number[] {
  return (index.byStem.get(phrase) ?? []).filter((f) => stemWords(f.path).length >= 2).map((f) => f.id);
}

/** Every indexed file with its path in lower case. */
function lowerCasePaths(index: NameIndex): Array<{ id: number; path: string }> {
  index.lowerCase ??= index.indexed.map((f) => ({ id: f.id, path: f.path.toLowerCase() }));
  return index.lowerCase;
}

/**
 * The files whose name the query spells out, with the words that did: a file name of two words or
 * more equal to a run of consecutive query words (any spelling), or a path or file name with an
 * extension that ends the file's path.
 */
export function filesNamed(search: SearchIndex, query: ParsedQuery): Map<number, string> {
  const { phrases, paths, modules } = namedFiles(query);
  const out = new Map<number, string>();
  if (phrases.size === 0 && paths.length === 0 && modules.length === 0) return out;
  const index = nameIndex(search);
  for (const [phrase, text] of phrases) for (const id of filesWithStem(index, phrase)) out.set(id, text);
  if (paths.length > 0) {
    for (const file of lowerCasePaths(index)) {
      const named = paths.find((p) => file.path === p || file.path.endsWith(`/${p}`));
      if (named) out.set(file.id, named);
    }
  }
  // A dotted name names the longest module file it starts with (`jinja2.utils.missing` → jinja2/utils.py).
  for (const candidates of modules) {
    for (const candidate of candidates) {
      const hits = lowerCasePaths(index).filter((f) => f.path === candidate || f.path.endsWith(`/${candidate}`));
      for (const hit of hits) out.set(hit.id, candidate.replace(/\.py$/, '').replace(/\//g, '.'));
      if (hits.length > 0) break;
    }
  }
  return out;
}

/**
 * Add `NAME_MATCH.share` × the best score to every file the query names (priors apply later, so a
 * test or a doc page of the same name stays below the code file). Returns their ids: whole-file
 * BM25 counts them as its best match (see `applyFileBm25`).
 */
export function applyNamedFiles(search: SearchIndex, query: ParsedQuery, files: Map<number, FileHit>): Set<number> {
  if (NAME_MATCH.share <= 0) return new Set();
  const named = filesNamed(search, query);
  if (named.size === 0) return new Set();
  const top = Math.max(0, ...[...files.values()].map((f) => f.score)) || 1;
  for (const [fileId, text] of named) {
    let file = files.get(fileId);
    if (!file) {
      file = { fileId, score: 0, chunks: [], why: [] };
      files.set(fileId, file);
    }
    file.score += top * NAME_MATCH.share;
    file.why.push({ kind: 'named-in-task', detail: { text } });
  }
  return new Set(named.keys());
}
