import { describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Db } from '../../platform/db/open';
import { CURATED_MIGRATIONS, ensureVectorTable, vectorTableName } from './schema';

const names = (db: Db, type: string) => db.prepare('select name from sqlite_master where type = ? order by name').pluck().all(type) as string[];

describe('the curated schema owner', () => {
  it('creates the vector bookkeeping by migration, and a vector table and the retire trigger only when an embedder first runs', () => {
    const db = openDatabase(':memory:', { migrations: CURATED_MIGRATIONS, withVectors: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(CURATED_MIGRATIONS.length);
      expect(names(db, 'table')).toEqual(expect.arrayContaining(['search_embedders', 'search_embedded', 'search_retired']));
      expect(names(db, 'trigger')).not.toContain('search_chunks_ad');

      expect(ensureVectorTable(db, 'Test/Model', 8)).toBe('vec_test_model_8');
      expect(ensureVectorTable(db, 'Test/Model', 8)).toBe(vectorTableName('Test/Model', 8));
      expect(names(db, 'table')).toContain('vec_test_model_8');
      expect(names(db, 'trigger')).toContain('search_chunks_ad');
      expect(db.prepare('select id, dimensions, table_name as tableName from search_embedders').all()).toEqual([{ id: 'Test/Model', dimensions: 8, tableName: 'vec_test_model_8' }]);
    } finally {
      db.close();
    }
  });

  it('keeps the bookkeeping an embedding run created before the migration existed', () => {
    const db = openDatabase(':memory:', { migrations: CURATED_MIGRATIONS.slice(0, 2) });
    try {
      // What embedding runs created themselves before migration 3.
      db.exec(`create table search_embedders (id text primary key, dimensions integer not null, table_name text not null, updated_at text);
               create table search_embedded (chunk_id integer not null, embedder_id text not null, text_hash text not null, primary key (chunk_id, embedder_id)) without rowid;
               create index search_embedded_embedder on search_embedded(embedder_id);
               create table search_retired (chunk_id integer not null, embedder_id text not null, text_hash text not null);
               insert into search_embedded values (7, 'm', 'abc');`);
      migrate(db, CURATED_MIGRATIONS);
      expect(db.pragma('user_version', { simple: true })).toBe(3);
      expect(db.prepare('select chunk_id as chunkId, text_hash as hash from search_embedded').all()).toEqual([{ chunkId: 7, hash: 'abc' }]);
    } finally {
      db.close();
    }
  });
});
