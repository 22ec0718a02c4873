import { BatchInsert } from '../db/batch';
import type { Db } from '../db/open';
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
 * The references of the files a run writes, staged in a temporary table while the files are parsed
 * instead of held in memory until linking (a 50k-file corpus has over a million): the linker reads
 * them back in rowid order, a batch at a time, and inserts them resolved into `symbol_references`
 * in the same order, so the stored rows are what resolving them all from memory wrote. The table
 * lives in SQLite's temporary database (a file, not this process's memory) and is dropped by
 * `close`. Its rowids are assigned in insertion order, so a file's references are one rowid range.
 */
export class PendingReferences {
  private readonly insert: BatchInsert;
  private readonly byRange;
  private readonly after;
  private count = 0;

  constructor(
    private readonly db: Db,
    private readonly batchSize = PENDING_BATCH,
  ) {
    db.exec('drop table if exists temp.pending_refs; create temp table pending_refs (id integer primary key, file_id integer, from_symbol_id integer, name text, kind text, line integer)');
    this.insert = new BatchInsert(db, 'temp.pending_refs', ['id', 'file_id', 'from_symbol_id', 'name', 'kind', 'line']);
    const columns = 'id, file_id as fileId, from_symbol_id as fromId, name, kind, line';
    this.byRange = db.prepare(`select ${columns} from temp.pending_refs where id between ? and ? and kind = 'inherit' order by id`);
    this.after = db.prepare(`select ${columns} from temp.pending_refs where id > ? order by id limit ?`);
  }

  /** Stage a file's references (`fromSymbol` indexes `symbols`); null when it has none. */
  add(fileId: number, symbols: readonly WrittenSymbol[], references: readonly ExtractedReference[]): PendingRange | null {
    if (references.length === 0) return null;
    const first = this.count + 1;
    let inherits = false;
    for (const ref of references) {
      const fromId = ref.fromSymbol === null ? null : (symbols[ref.fromSymbol]?.id ?? null);
      if (ref.kind === 'inherit') inherits = true;
      this.insert.add(++this.count, fileId, fromId, ref.name, ref.kind, ref.line);
    }
    return { first, last: this.count, inherits };
  }

  /** The `inherit` references of one staged range, in order. */
  inheritsOf(range: PendingRange): PendingRow[] {
    this.insert.flush();
    return this.byRange.all(range.first, range.last) as PendingRow[];
  }

  /** Every staged reference in rowid order, `size` rows at a time. */
  *batches(size = this.batchSize): Generator<PendingRow[]> {
    this.insert.flush();
    for (let after = 0; after < this.count; ) {
      const rows = this.after.all(after, size) as PendingRow[];
      if (rows.length === 0) return;
      yield rows;
      after = rows[rows.length - 1]!.id;
    }
  }

  /** Drop the staging table. */
  close(): void {
    this.db.exec('drop table if exists temp.pending_refs');
  }
}
