import { BatchInsert } from '../../platform/db/batch';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../platform/db/open';
import type { ExtractedReference } from './extract/types';
import type { WrittenSymbol } from './symbolTable';

/** A written file's references in the staging table: rowids `first`..`last`; `inherits` when any is an `inherit`. */
export interface PendingRange {
  first: number;
  last: number;
  inherits: boolean;
}

/** A staged reference, in the column order of `symbol_references` less the target. */
export interface PendingRow {
  id: number;
  fileId: number;
  fromId: number | null;
  name: string;
  kind: string;
  line: number;
}

/** Rows read from the staging table at a time by `batches` (bounds what resolution holds). */
export const PENDING_BATCH = 4096;

/**
 * References held in memory before they spill to the staging table. Below it a run keeps them in
 * an array (reading 65k rows back from SQLite cost the stdlib's link phase about as much as the
 * resolution itself); above it, the rows go to disk and memory stays bounded at any corpus size.
 */
export const PENDING_SPILL_ROWS = 200_000;

/**
 * The references of the files a run writes, staged while the files are parsed: in memory up to
 * `spillAt` rows, then in a temporary table instead of held in memory until linking (a 50k-file
 * corpus has over a million): the linker reads
 * them back in rowid order, a batch at a time, and inserts them resolved into `symbol_references`
 * in the same order, so the stored rows are what resolving them all from memory wrote. The table
 * lives in SQLite's temporary database (a file, not this process's memory) and is dropped by
 * `close`. Its rowids are assigned in insertion order, so a file's references are one rowid range.
 */
export class PendingReferences {
  /** The staged rows while they are few enough to keep; null once they spilled to the table. */
  private memory: PendingRow[] | null = [];
  private table: { insert: BatchInsert; byRange: Statement; after: Statement } | null = null;
  private count = 0;

  constructor(
    private readonly db: Db,
    private readonly batchSize = PENDING_BATCH,
    private readonly spillAt = PENDING_SPILL_ROWS,
  ) {}

  /** Stage a file's references (`fromSymbol` indexes `symbols`); null when it has none. */
  add(fileId: number, symbols: readonly WrittenSymbol[], references: readonly ExtractedReference[]): PendingRange | null {
    if (references.length === 0) return null;
    const first = this.count + 1;
    let inherits = false;
    for (const ref of references) {
      const row: PendingRow = { id: ++this.count, fileId, fromId: ref.fromSymbol === null ? null : (symbols[ref.fromSymbol]?.id ?? null), name: ref.name, kind: ref.kind, line: ref.line };
      if (ref.kind === 'inherit') inherits = true;
      if (this.memory && this.memory.length >= this.spillAt) this.spill(this.memory);
      if (this.memory) this.memory.push(row);
      else this.tableOf().insert.add(row.id, row.fileId, row.fromId, row.name, row.kind, row.line);
    }
    return { first, last: this.count, inherits };
  }

  /** The `inherit` references of one staged range, in order. */
  inheritsOf(range: PendingRange): PendingRow[] {
    if (this.memory) return this.memory.slice(range.first - 1, range.last).filter((row) => row.kind === 'inherit');
    const table = this.tableOf();
    table.insert.flush();
    return table.byRange.all(range.first, range.last) as PendingRow[];
  }

  /** Every staged reference in rowid order, `size` rows at a time. */
  *batches(size = this.batchSize): Generator<PendingRow[]> {
    if (this.memory) {
      for (let at = 0; at < this.memory.length; at += size) yield this.memory.slice(at, at + size);
      return;
    }
    const table = this.tableOf();
    table.insert.flush();
    for (let after = 0; after < this.count; ) {
      const rows = table.after.all(after, size) as PendingRow[];
      if (rows.length === 0) return;
      yield rows;
      after = rows[rows.length - 1]!.id;
    }
  }

  /** Drop the staging table (when the rows spilled to one). */
  close(): void {
    if (this.table) this.db.exec('drop table if exists temp.pending_refs');
    this.table = null;
    this.memory = [];
  }

  /** Move the rows held so far to the staging table; later rows go there directly. */
  private spill(rows: PendingRow[]): void {
    this.memory = null;
    const { insert } = this.tableOf();
    for (const row of rows) insert.add(row.id, row.fileId, row.fromId, row.name, row.kind, row.line);
  }

  private tableOf(): { insert: BatchInsert; byRange: Statement; after: Statement } {
    if (this.table) return this.table;
    this.db.exec('drop table if exists temp.pending_refs; create temp table pending_refs (id integer primary key, file_id integer, from_symbol_id integer, name text, kind text, line integer)');
    const columns = 'id, file_id as fileId, from_symbol_id as fromId, name, kind, line';
    this.table = {
      insert: new BatchInsert(this.db, 'temp.pending_refs', ['id', 'file_id', 'from_symbol_id', 'name', 'kind', 'line']),
      byRange: this.db.prepare(`select ${columns} from temp.pending_refs where id between ? and ? and kind = 'inherit' order by id`),
      after: this.db.prepare(`select ${columns} from temp.pending_refs where id > ? order by id limit ?`),
    };
    return this.table;
  }
}
