import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Migration } from './open';

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cra-db-'));
  dirs.push(dir);
  return join(dir, 'test.sqlite');
}
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const v1: Migration = { version: 1, description: 'items', up: (db) => db.exec('create table items (id integer primary key, name text not null)') };
const v2: Migration = { version: 2, description: 'items.size', up: (db) => db.exec('alter table items add column size integer') };

describe('openDatabase', () => {
  it('creates a WAL database and applies migrations in order', () => {
    const file = tempFile();
    const db = openDatabase(file, { migrations: [v1, v2] });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    db.prepare('insert into items (name, size) values (?, ?)').run('a', 1);
    db.close();
  });

  it('syncs at each commit unless asked not to (synchronous off, for a scratch file)', () => {
    const normal = openDatabase(tempFile(), { journal: 'rollback' });
    const scratch = openDatabase(tempFile(), { journal: 'rollback', synchronous: 'off', migrations: [v1] });
    // SQLite's numbers: 0 OFF, 1 NORMAL.
    expect(normal.pragma('synchronous', { simple: true })).toBe(1);
    expect(scratch.pragma('synchronous', { simple: true })).toBe(0);
    normal.close();
    scratch.close();
  });

  it('upgrades an older file and keeps its rows', () => {
    const file = tempFile();
    const old = openDatabase(file, { migrations: [v1] });
    old.prepare('insert into items (name) values (?)').run('kept');
    old.close();
    const db = openDatabase(file, { migrations: [v1, v2] });
    expect(db.prepare('select name from items').pluck().all()).toEqual(['kept']);
    db.close();
  });

  it('rolls back a failing migration and leaves the previous version', () => {
    const file = tempFile();
    openDatabase(file, { migrations: [v1] }).close();
    const broken: Migration = { version: 2, description: 'broken', up: (db) => { db.exec('create table half (x)'); throw new Error('boom'); } };
    expect(() => openDatabase(file, { migrations: [v1, broken] })).toThrow('boom');
    const db = openDatabase(file, { migrations: [v1] });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("select count(*) from sqlite_master where name = 'half'").pluck().get()).toBe(0);
    db.close();
  });

  it('refuses a database newer than the build', () => {
    const file = tempFile();
    openDatabase(file, { migrations: [v1, v2] }).close();
    expect(() => openDatabase(file, { migrations: [v1] })).toThrow(/newer than this build/);
  });

  it('loads sqlite-vec when asked', () => {
    const db = openDatabase(':memory:', { withVectors: true });
    expect(db.prepare('select vec_version()').pluck().get()).toMatch(/^v0\.1/);
    db.close();
  });

  it('skips a migration another process applied between its version check and its transaction', () => {
    const file = tempFile();
    const first = openDatabase(file, { migrations: [v1, v2] });
    const second = openDatabase(file);
    // The interleaving of two processes opening a new file together: the second read version 0
    // before the first committed its migrations.
    const pragma = second.pragma.bind(second);
    let stale = true;
    second.pragma = ((source: string, options?: { simple?: boolean }) => {
      if (stale && source === 'user_version') {
        stale = false;
        return 0;
      }
      return pragma(source, options);
    }) as typeof second.pragma;
    expect(() => migrate(second, [v1, v2], 'test.sqlite')).not.toThrow();
    expect(pragma('user_version', { simple: true })).toBe(2);
    expect(second.prepare('select count(*) from items').pluck().get()).toBe(0);
    second.close();
    first.close();
  });
});
