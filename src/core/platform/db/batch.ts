import type Database from 'better-sqlite3';
import type { Db } from './open';

/** Rows per multi-row insert statement (6-8 columns → well under SQLite's 32766 variables). */
const DEFAULT_ROWS_PER_STATEMENT = 32;

type Value = string | number | bigint | null;

/**
 * Inserts many rows through one multi-row `insert … values (…), (…)` statement per batch: one call
 * into SQLite per batch instead of per row (measured faster than one `run` per row: docs/indexing.md). For rows whose ids are not needed; `flush` writes what is buffered.
 */
export class BatchInsert {
  private readonly batch: Database.Statement;
  private readonly single: Database.Statement;
  private readonly buffer: Value[] = [];
  private readonly width: number;

  constructor(
    db: Db,
    table: string,
    columns: readonly string[],
    private readonly rowsPerStatement = DEFAULT_ROWS_PER_STATEMENT,
  ) {
    this.width = columns.length;
    const row = `(${columns.map(() => '?').join(', ')})`;
    const head = `insert into ${table} (${columns.join(', ')}) values `;
    this.batch = db.prepare(head + Array.from({ length: rowsPerStatement }, () => row).join(', '));
    this.single = db.prepare(head + row);
  }

  /** Buffer one row (values in the column order given to the constructor). */
  add(...values: Value[]): void {
    if (values.length !== this.width) throw new Error(`expected ${this.width} values, got ${values.length}`);
    for (const v of values) this.buffer.push(v);
    if (this.buffer.length === this.width * this.rowsPerStatement) {
      this.batch.run(this.buffer);
      this.buffer.length = 0;
    }
  }

  /** Write the rows still buffered. */
  flush(): void {
    for (let i = 0; i < this.buffer.length; i += this.width) this.single.run(this.buffer.slice(i, i + this.width));
    this.buffer.length = 0;
  }
}
