import { describe, expect, it } from 'vitest';
import { BatchInsert } from './batch';
import { openDatabase } from './open';

describe('BatchInsert', () => {
  it('writes every row in order, full batches and the remainder alike', () => {
    const db = openDatabase(':memory:');
    db.exec('create table t (id integer primary key, name text, n integer, note text)');
    const insert = new BatchInsert(db, 't', ['name', 'n', 'note'], 4);
    for (let i = 0; i < 10; i++) insert.add(`row${i}`, i, i % 3 === 0 ? null : 'x');
    // Two full batches of 4 are written as they fill; the last 2 rows wait for flush.
    expect(db.prepare('select count(*) from t').pluck().get()).toBe(8);
    insert.flush();
    const rows = db.prepare('select name, n, note from t order by id').all() as Array<{ name: string; n: number; note: string | null }>;
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(rows[3]).toEqual({ name: 'row3', n: 3, note: null });
    insert.flush();
    expect(db.prepare('select count(*) from t').pluck().get()).toBe(10);
    db.close();
  });

  it('refuses a row of the wrong width', () => {
    const db = openDatabase(':memory:');
    db.exec('create table t (a, b)');
    expect(() => new BatchInsert(db, 't', ['a', 'b']).add(1)).toThrow(/expected 2 values, got 1/);
    db.close();
  });
});
