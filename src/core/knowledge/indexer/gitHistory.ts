import type { Db } from '../../platform/db/open';
import { coChangePairs, gitHead, gitLog, gitRevList, isAncestor, type GitCommit } from './git';

/** Bounds of the git pass. */
export interface GitHistoryOptions {
  signal?: AbortSignal;
  /** Commits read on a full pass (newest first). */
  maxCommits: number;
  /** Re-read history even when HEAD did not move. */
  full: boolean;
  /** HEAD as read when the run started (saves a git call); read here when absent. */
  head?: Promise<string | null>;
}

/** Read a value of `index_meta`, null when absent. */
export function getMeta(db: Db, key: string): string | null {
  return (db.prepare('select value from index_meta where key = ?').get(key) as { value: string } | undefined)?.value ?? null;
}

/** Store a value in `index_meta`. */
export function setMeta(db: Db, key: string, value: string): void {
  db.prepare('insert into index_meta (key, value) values (?, ?) on conflict(key) do update set value = excluded.value').run(key, value);
}

/**
 * What the git pass found to write: null when HEAD did not move (nothing to do). `keep`: on an
 * incremental pass that takes the history past `maxCommits`, the commits a full pass would hold
 * (the newest `maxCommits`); the older ones are evicted.
 */
export type GitHistoryRead = { head: string | null; incremental: boolean; commits: GitCommit[]; keep?: string[] } | null;

/**
 * Read what is needed to bring commits, file_commits and co_changes up to date with HEAD: nothing
 * when HEAD did not move, only the new commits when the old HEAD is an ancestor, else a full
 * re-read (bounded). The stored HEAD is read at the call, so the indexer starts this before it
 * writes anything and `git log` runs while the files are parsed; `writeGitHistory` stores the result.
 */
export async function readGitHistory(db: Db, root: string, isGit: boolean, options: GitHistoryOptions): Promise<GitHistoryRead> {
  const previous = getMeta(db, 'git_head');
  const head = isGit ? await (options.head ?? gitHead(root)) : null;
  if (!head) return { head: null, incremental: false, commits: [] };
  if (!options.full && previous === head) return null;
  const incremental = !options.full && !!previous && (await isAncestor(root, previous, head));
  const commits = await gitLog(root, { maxCount: options.maxCommits, since: incremental ? previous! : undefined, signal: options.signal });
  // Incremental passes add commits; past the bound the oldest go, so the tables stay what a full
  // pass at this HEAD would write (same commits, same co-change counts), not a window that grows.
  const stored = incremental ? (db.prepare('select count(*) from commits').pluck().get() as number) : 0;
  if (incremental && stored + commits.length > options.maxCommits) {
    return { head, incremental, commits, keep: await gitRevList(root, { maxCount: options.maxCommits, signal: options.signal }) };
  }
  return { head, incremental, commits };
}

/** Store what `readGitHistory` read. A repository without commits (or outside git) ends with empty history tables. */
export function writeGitHistory(db: Db, read: GitHistoryRead, maxFilesPerCommit: number): { newCommits: number } {
  if (!read) return { newCommits: 0 };
  if (!read.head) {
    clearHistory(db);
    setMeta(db, 'git_head', '');
    return { newCommits: 0 };
  }
  if (!read.incremental) clearHistory(db);
  writeCommits(db, read.commits, maxFilesPerCommit);
  if (read.keep) evictCommits(db, new Set(read.keep), maxFilesPerCommit);
  setMeta(db, 'git_head', read.head);
  return { newCommits: read.commits.length };
}

function clearHistory(db: Db): void {
  db.exec('delete from co_changes; delete from file_commits; delete from commits;');
}

/**
 * Remove the stored commits outside `keep` with their paths, and take their co-change pairs back
 * out of the counts (a pair no commit supports any more goes). A commit's paths are all of them
 * (file_commits is written for every path), so its pairs are the ones it added.
 */
function evictCommits(db: Db, keep: ReadonlySet<string>, maxFilesPerCommit: number): void {
  const gone = (db.prepare('select sha from commits').pluck().all() as string[]).filter((sha) => !keep.has(sha));
  if (gone.length === 0) return;
  const pathsOf = db.prepare('select path from file_commits where sha = ?').pluck();
  const evicted = gone.map((sha) => ({ files: pathsOf.all(sha) as string[] }));
  const decrement = db.prepare('update co_changes set count = count - ? where file_a = ? and file_b = ?');
  for (const [key, count] of coChangePairs(evicted, maxFilesPerCommit)) {
    const [a, b] = key.split('\0');
    decrement.run(count, a, b);
  }
  db.exec('delete from co_changes where count <= 0');
  const dropPaths = db.prepare('delete from file_commits where sha = ?');
  const dropCommit = db.prepare('delete from commits where sha = ?');
  for (const sha of gone) {
    dropPaths.run(sha);
    dropCommit.run(sha);
  }
}

function writeCommits(db: Db, commits: GitCommit[], maxFilesPerCommit: number): void {
  const insertCommit = db.prepare('insert or ignore into commits (sha, author, email, date, message) values (?, ?, ?, ?, ?)');
  const insertFileCommit = db.prepare('insert or ignore into file_commits (path, sha) values (?, ?)');
  const upsertPair = db.prepare(
    'insert into co_changes (file_a, file_b, count) values (?, ?, ?) on conflict(file_a, file_b) do update set count = count + excluded.count',
  );
  for (const c of commits) {
    insertCommit.run(c.sha, c.author, c.email, c.date, c.message);
    for (const path of c.files) insertFileCommit.run(path, c.sha);
  }
  for (const [key, count] of coChangePairs(commits, maxFilesPerCommit)) {
    const [a, b] = key.split('\0');
    upsertPair.run(a, b, count);
  }
}
