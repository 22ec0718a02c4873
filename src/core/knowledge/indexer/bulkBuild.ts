/**
 * What a full build does differently from an incremental run: it runs without foreign-key
 * enforcement, empties every table itself, inserts without the FTS triggers and the deferred
 * secondary indexes (recreated at the end), search-indexes chunks in batches while files are
 * parsed, and an empty index's first build commits through a rollback journal instead of the WAL.
 * Where the time goes: docs/indexing.md.
 */
import type { Db } from '../../platform/db/open';
import type { ChunkIndexThread } from './chunkIndexThread';
import { getMeta } from './gitHistory';
import { BULK_DEFERRED_INDEXES, FTS_TRIGGER_NAMES, FTS_TRIGGERS } from './schema';

/**
 * Foreign keys off for a full build, which rewrites every row itself: emptying the index is then
 * a truncate per table instead of cascades row by row. The pragma only takes effect outside a
 * transaction, so this runs before `begin`. The indexer tests run `foreign_key_check` after full builds.
 */
export function disableForeignKeys(db: Db): void {
  db.pragma('foreign_keys = OFF');
}

/** Whether the index holds nothing yet: no finished run and no file. */
export function isEmptyIndex(db: Db): boolean {
  return getMeta(db, 'index_version') === null && db.prepare('select not exists (select 1 from files)').pluck().get() === 1;
}

/**
 * The first build of an empty index commits through a rollback journal instead of the WAL: the
 * WAL would take every page twice (into the WAL, then the checkpoint copies it into the database),
 * a rollback journal of an empty database holds next to nothing. An interrupted build still rolls
 * back to the empty index. Only when no other connection has the database open (SQLite refuses
 * the switch otherwise, and the build stays in WAL mode); `restoreWal` switches back right after
 * the transaction. Returns whether the switch happened.
 */
export function useRollbackJournal(db: Db): boolean {
  try {
    if (db.pragma('journal_mode = DELETE', { simple: true }) !== 'delete') return false;
  } catch {
    return false; // "database is locked": another connection has it open
  }
  db.pragma('synchronous = FULL');
  return true;
}

/** Back to WAL mode after a first build (see useRollbackJournal). */
export function restoreWal(db: Db): void {
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  } catch (error) {
    // A reader that opened meanwhile holds the database; the next write connection (openDatabase) switches it.
    console.warn(`[indexer] the index stays in rollback-journal mode until its next run: ${(error as Error).message}`);
  }
}

/**
 * A full build empties the index and inserts without the FTS triggers and the deferred secondary
 * indexes; the chunks are search-indexed in batches as they are written (BulkChunkIndex), and
 * `finishBulkBuild` indexes the last ones and every path, creates those indexes and restores the
 * triggers. Both run inside the run's transaction, so a failure restores the triggers and indexes
 * with everything else.
 */
export function startBulkBuild(db: Db): void {
  for (const name of FTS_TRIGGER_NAMES) db.exec(`drop trigger if exists ${name}`);
  // Without foreign keys nothing cascades: every table that refers to files or commits
  // (found from the schema, so a new table is not forgotten) is emptied here.
  for (const table of [...tablesReferring(db, ['files', 'commits']), 'files', 'commits', 'index_meta']) db.exec(`delete from ${table}`);
  db.exec(`insert into chunks_fts(chunks_fts) values ('delete-all'); insert into paths_fts(paths_fts) values ('delete-all');`);
  for (const index of BULK_DEFERRED_INDEXES) db.exec(`drop index if exists ${index.name}`);
}

/** Tables with a foreign key to one of `roots`, directly or through another such table. */
export function tablesReferring(db: Db, roots: readonly string[]): string[] {
  const tables = db.prepare("select name from sqlite_master where type = 'table' and sql not like 'create virtual%' and name not like 'sqlite_%'").pluck().all() as string[];
  const parentsOf = new Map(tables.map((t) => [t, (db.pragma(`foreign_key_list("${t}")`) as Array<{ table: string }>).map((fk) => fk.table)]));
  const found = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [table, parents] of parentsOf) {
      if (found.has(table) || roots.includes(table)) continue;
      if (parents.some((p) => roots.includes(p) || found.has(p))) {
        found.add(table);
        grew = true;
      }
    }
  }
  return [...found];
}

/**
 * The end of a full build: the last chunks (or the search index thread's copy) and every path
 * search-indexed, deferred indexes and FTS triggers back. A failed thread leaves its chunks to this thread.
 */
export async function finishBulkBuild(db: Db, chunkIndex: BulkChunkIndex | ChunkIndexThread): Promise<void> {
  if (chunkIndex instanceof BulkChunkIndex) chunkIndex.catchUp();
  else if (!(await chunkIndex.finish(db))) new BulkChunkIndex(db).catchUp();
  db.exec(`insert into paths_fts(paths_fts) values ('rebuild');`);
  for (const index of BULK_DEFERRED_INDEXES) db.exec(index.sql);
  db.exec(FTS_TRIGGERS);
}

/** Chunks written between two search-index batches of a full build. */
const CHUNK_INDEX_BATCH = 2000;

/**
 * The chunk search index of a full build, filled while the files are parsed: every
 * CHUNK_INDEX_BATCH chunks written, one `insert … select` indexes them. That costs about what
 * FTS5's one-pass 'rebuild' costs (a trigger per row costs about three times as much), but runs
 * while the workers parse instead of after the last file, when one core is idle.
 */
export class BulkChunkIndex {
  private readonly insert;
  private readonly lastId;
  private indexedUpTo = 0;
  private pending = 0;

  constructor(
    db: Db,
    private readonly batch = CHUNK_INDEX_BATCH,
  ) {
    this.insert = db.prepare('insert into chunks_fts(rowid, path, symbol_names, identifiers, text) select id, path, symbol_names, identifiers, text from chunks where id > ?');
    this.lastId = db.prepare('select coalesce(max(id), 0) from chunks').pluck();
  }

  /** A file's chunks were written with these ids. */
  written(ids: readonly number[]): void {
    this.pending += ids.length;
    if (this.pending >= this.batch) this.catchUp();
  }

  /** Index every chunk written so far (chunk ids only grow during a full build). */
  catchUp(): void {
    const upTo = this.lastId.get() as number;
    if (upTo > this.indexedUpTo) this.insert.run(this.indexedUpTo);
    this.indexedUpTo = upTo;
    this.pending = 0;
  }
}
