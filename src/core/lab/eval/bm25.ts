import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Db, type Migration } from '../../platform/db/open';
import { throwIfAborted } from '../../platform/runtime/runs';
import { isCodePath, isGoldSourcePath, languageFamilyOf } from './classify';
import { gitText } from '../../platform/git';
import { StandardBm25 } from './standardBm25';

/** Files larger than this are left out of the reference, as the indexer leaves them out. */
const MAX_BYTES = 1_000_000;
/** Terms of a task text used in the reference query. */
const MAX_TERMS = 64;

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'whole-file BM25 reference',
    up: (db) =>
      db.exec(`
        create table files (id integer primary key, path text not null unique, blob text not null);
        create virtual table files_fts using fts5(path unindexed, body, tokenize='porter unicode61');
      `),
  },
  {
    version: 2,
    description: 'source-only BM25 reference',
    // A table of its own, so its term statistics (IDF, average length) come from source files only.
    up: (db) => db.exec(`create virtual table source_fts using fts5(path unindexed, language unindexed, body, tokenize='porter unicode61');`),
  },
];

/**
 * The references every evaluation compares against: plain BM25 over the whole text of each code
 * file, one FTS5 table with the tokenizer the product's index uses ('porter unicode61'), no
 * identifier splitting, paths, symbols or graph. The second, stronger one ranks only source files
 * (what a gold file can be: no tests, docs or configuration) of the task's language, from a table
 * of those files alone. Kept in the evaluation's own folder and updated incrementally: a file is
 * re-read only when its git blob changed between two checkouts.
 */
export class Bm25Reference {
  private readonly db: Db;
  /** The standard reference (`bm25-standard`), in memory: filled by this object's syncs. */
  private readonly standard = new StandardBm25();

  constructor(file: string) {
    this.db = openDatabase(file, { migrations: MIGRATIONS });
  }

  /** Bring the table in line with the checkout at `worktree`; returns how many files changed. */
  async sync(worktree: string, signal?: AbortSignal): Promise<{ updated: number; removed: number }> {
    const blobs = await listBlobs(worktree, signal);
    const known = new Map(this.db.prepare('select id, path, blob from files').all().map((r) => {
      const row = r as { id: number; path: string; blob: string };
      return [row.path, row] as const;
    }));
    // A source file the in-memory standard reference has not seen (a table left from an earlier
    // object) is read again too.
    const changed = [...blobs].filter(([path, blob]) => known.get(path)?.blob !== blob || (isGoldSourcePath(path) && !this.standard.has(path)));
    const gone = [...known.values()].filter((row) => !blobs.has(row.path));
    const texts = changed.map(([path, blob]) => ({ path, blob, body: readText(join(worktree, path)) }));
    throwIfAborted(signal);
    this.db.transaction(() => {
      const dropFts = this.db.prepare('delete from files_fts where rowid = ?');
      const dropSource = this.db.prepare('delete from source_fts where rowid = ?');
      const drop = (id: number) => {
        dropFts.run(id);
        dropSource.run(id);
      };
      const dropFile = this.db.prepare('delete from files where id = ?');
      for (const row of gone) {
        this.standard.remove(row.path);
        drop(row.id);
        dropFile.run(row.id);
      }
      const upsert = this.db.prepare('insert into files (path, blob) values (?, ?) on conflict(path) do update set blob = excluded.blob returning id');
      const insertFts = this.db.prepare('insert into files_fts (rowid, path, body) values (?, ?, ?)');
      const insertSource = this.db.prepare('insert into source_fts (rowid, path, language, body) values (?, ?, ?, ?)');
      for (const { path, blob, body } of texts) {
        const previous = known.get(path);
        if (previous) drop(previous.id);
        const { id } = upsert.get(path, blob) as { id: number };
        insertFts.run(id, path, body ?? '');
        if (isGoldSourcePath(path)) {
          insertSource.run(id, path, languageFamilyOf(path), body ?? '');
          this.standard.set(path, languageFamilyOf(path), body ?? '');
        }
      }
    })();
    return { updated: changed.length, removed: gone.length };
  }

  /** The files ranked for a task text, best first (at most `limit`). */
  rank(text: string, limit = 50): string[] {
    const match = referenceQuery(text);
    if (!match) return [];
    const rows = this.db
      .prepare('select path from files_fts where files_fts match ? order by bm25(files_fts) limit ?')
      .all(match, limit) as Array<{ path: string }>;
    return rows.map((r) => r.path);
  }

  /**
   * The source files of the given language families ranked for a task text, best first (at most
   * `limit`): BM25 over source files alone, the stronger reference.
   */
  rankSource(text: string, languages: ReadonlySet<string>, limit = 50): string[] {
    const match = referenceQuery(text);
    if (!match || languages.size === 0) return [];
    const rows = this.db
      .prepare(`select path from source_fts where source_fts match ? and ${languageIn(languages)} order by bm25(source_fts) limit ?`)
      .all(match, ...languages, limit) as Array<{ path: string }>;
    return rows.map((r) => r.path);
  }

  /**
   * The source files of the given language families ranked by the standard BM25 (identifier
   * splitting, path tokens, k1 1.2, b 0.75; see StandardBm25), best first: the usual baseline.
   */
  rankStandard(text: string, languages: ReadonlySet<string>, limit = 50): string[] {
    return this.standard.rank(text, languages, limit);
  }

  /** How many source files of the given language families the source-only reference holds. */
  sourceCount(languages: ReadonlySet<string>): number {
    if (languages.size === 0) return 0;
    return (this.db.prepare(`select count(*) as n from source_fts where ${languageIn(languages)}`).get(...languages) as { n: number }).n;
  }

  /** How many files the reference holds. */
  size(): number {
    return (this.db.prepare('select count(*) as n from files').get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}

/** `language in (?, …)` with one placeholder per language family (bound in the set's order). */
function languageIn(languages: ReadonlySet<string>): string {
  return `language in (${[...languages].map(() => '?').join(', ')})`;
}

/** The FTS5 query for a task text: every distinct word as a quoted term, OR-ed (null when none). */
export function referenceQuery(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
  const terms = [...new Set(words)].slice(0, MAX_TERMS);
  return terms.length === 0 ? null : terms.map((t) => `"${t}"`).join(' OR ');
}

/** Code files of the checkout with their blob ids, from the git index of the worktree. */
async function listBlobs(worktree: string, signal?: AbortSignal): Promise<Map<string, string>> {
  const out = await gitText(['ls-files', '-s', '-z'], { cwd: worktree, signal });
  const blobs = new Map<string, string>();
  for (const entry of out.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [mode, blob] = entry.slice(0, tab).split(' ');
    const path = entry.slice(tab + 1);
    if (mode === '160000' || !blob || !isCodePath(path)) continue;
    blobs.set(path, blob);
  }
  return blobs;
}

/** The text of a file, or undefined when it is missing, too large or binary. */
function readText(file: string): string | undefined {
  try {
    const buffer = readFileSync(file);
    if (buffer.length > MAX_BYTES || buffer.includes(0)) return undefined;
    return buffer.toString('utf8');
  } catch {
    return undefined;
  }
}
