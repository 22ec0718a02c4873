import type { EmbedderStatus } from '../../../shared/contract/search';
import { loadVectors, type Db } from '../../platform/db/open';
import { ensureVectorTable, vectorTableName } from './schema';
import { statementCacheOf } from './statements';

export { vectorTableName } from './schema';

/**
 * Vectors of one embedder inside a repository's curated database: its `vec_<id>_<dims>` table and
 * the `search_embedded` / `search_retired` bookkeeping (the tables are described, and created, by
 * core/kb/schema.ts).
 */
export class VectorStore {
  readonly table: string;
  private readonly sql;

  private constructor(
    private readonly db: Db,
    readonly embedderId: string,
    readonly dimensions: number,
  ) {
    this.table = vectorTableName(embedderId, dimensions);
    this.sql = statementCacheOf(db);
  }

  /** Open (creating tables if needed) the store of one embedder; loads sqlite-vec into `db`. */
  static open(db: Db, embedderId: string, dimensions: number): VectorStore {
    ensureVectorsLoaded(db);
    ensureVectorTable(db, embedderId, dimensions);
    return new VectorStore(db, embedderId, dimensions);
  }

  /** The store of an embedder when it already has a table, without creating anything; else undefined. */
  static existing(db: Db, embedderId: string): VectorStore | undefined {
    if (!hasTable(db, 'search_embedders')) return undefined;
    const row = statementCacheOf(db).rowsOf('select dimensions from search_embedders where id = ?').get(embedderId) as { dimensions: number } | undefined;
    if (!row) return undefined;
    ensureVectorsLoaded(db);
    return new VectorStore(db, embedderId, row.dimensions);
  }

  /** Chunk id → text hash of every vector stored for this embedder whose chunk still exists. */
  embeddedHashes(): Map<number, string> {
    const rows = this.sql.rowsOf('select chunk_id as id, text_hash as hash from search_embedded where embedder_id = ?').all(this.embedderId) as Array<{ id: number; hash: string }>;
    return new Map(rows.map((r) => [r.id, r.hash]));
  }

  /** Store (or replace) vectors, in one transaction. */
  upsert(items: ReadonlyArray<{ chunkId: number; hash: string; vector: Float32Array }>): void {
    const del = this.sql.rowsOf(`delete from ${this.table} where chunk_id = ?`);
    const ins = this.sql.rowsOf(`insert into ${this.table} (chunk_id, embedding) values (?, ?)`);
    const mark = this.sql.rowsOf('insert or replace into search_embedded (chunk_id, embedder_id, text_hash) values (?, ?, ?)');
    this.db.transaction(() => {
      for (const item of items) {
        if (item.vector.length !== this.dimensions) throw new Error(`Vector of ${item.vector.length} dimensions for a ${this.dimensions}-d store.`);
        del.run(BigInt(item.chunkId));
        ins.run(BigInt(item.chunkId), Buffer.from(item.vector.buffer, item.vector.byteOffset, item.vector.byteLength));
        mark.run(item.chunkId, this.embedderId, item.hash);
      }
      this.touch();
    })();
  }

  /**
   * Vectors of deleted chunks whose text hash is one of `hashes` (hash → vector), read before
   * `removeOrphans` drops them. A retired id that a live chunk holds again is skipped: its vector
   * row may already be the new chunk's.
   */
  retiredVectors(hashes: ReadonlySet<string>): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    if (hashes.size === 0) return out;
    const rows = this.sql
      .rowsOf(
        `select r.text_hash as hash, v.embedding as embedding from search_retired r join ${this.table} v on v.chunk_id = r.chunk_id
         where r.embedder_id = ? and r.chunk_id not in (select chunk_id from search_embedded where embedder_id = ?)`,
      )
      .all(this.embedderId, this.embedderId) as Array<{ hash: string; embedding: Buffer }>;
    for (const row of rows) {
      if (!hashes.has(row.hash) || out.has(row.hash)) continue;
      const bytes = new Uint8Array(row.embedding);
      out.set(row.hash, new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
    }
    return out;
  }

  /** Remove the vectors of chunks that no longer exist (or no longer have a bookkeeping row), and forget retired ones. */
  removeOrphans(): number {
    const ids = this.sql
      .valuesOf(`select chunk_id from ${this.table} where chunk_id not in (select chunk_id from search_embedded where embedder_id = ?)`)
      .all(this.embedderId) as number[];
    const stale = this.sql.valuesOf('select chunk_id from search_embedded where embedder_id = ? and chunk_id not in (select id from chunks)').all(this.embedderId) as number[];
    const del = this.sql.rowsOf(`delete from ${this.table} where chunk_id = ?`);
    const unmark = this.sql.rowsOf('delete from search_embedded where embedder_id = ? and chunk_id = ?');
    this.db.transaction(() => {
      for (const id of new Set([...ids, ...stale])) {
        del.run(BigInt(id));
        unmark.run(this.embedderId, id);
      }
      this.sql.rowsOf('delete from search_retired where embedder_id = ?').run(this.embedderId);
      if (ids.length + stale.length > 0) this.touch();
    })();
    return new Set([...ids, ...stale]).size;
  }

  /** The `k` nearest chunks to a unit query vector, with cosine similarity, best first; only live chunks. */
  nearest(query: Float32Array, k: number): Array<{ chunkId: number; similarity: number }> {
    const rows = this.sql
      .rowsOf(
        `select v.chunk_id as chunkId, v.distance as distance from (select chunk_id, distance from ${this.table} where embedding match ? and k = ?) v
         join search_embedded e on e.chunk_id = v.chunk_id and e.embedder_id = ? order by v.distance`,
      )
      .all(Buffer.from(query.buffer, query.byteOffset, query.byteLength), k, this.embedderId) as Array<{ chunkId: number; distance: number }>;
    return rows.map((r) => ({ chunkId: Number(r.chunkId), similarity: 1 - r.distance }));
  }

  /**
   * Each file's vector: the unit mean of its live chunks' vectors (files without vectors are
   * absent). Read row by row, so memory holds one running sum per file, not every vector.
   */
  fileMeans(): Map<number, Float32Array> {
    const sums = new Map<number, Float32Array>();
    const rows = this.sql
      .rowsOf(`select c.file_id as fileId, v.embedding as embedding from search_embedded e join chunks c on c.id = e.chunk_id join ${this.table} v on v.chunk_id = e.chunk_id where e.embedder_id = ?`)
      .iterate(this.embedderId) as IterableIterator<{ fileId: number; embedding: Buffer }>;
    for (const row of rows) {
      const bytes = new Uint8Array(row.embedding);
      const vector = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
      let sum = sums.get(row.fileId);
      if (!sum) sums.set(row.fileId, (sum = new Float32Array(vector.length)));
      for (let i = 0; i < vector.length; i++) sum[i] = sum[i]! + vector[i]!;
    }
    for (const sum of sums.values()) {
      let norm = 0;
      for (const x of sum) norm += x * x;
      norm = Math.sqrt(norm);
      if (norm > 0) for (let i = 0; i < sum.length; i++) sum[i] = sum[i]! / norm;
    }
    return sums;
  }

  /** Number of live vectors. */
  count(): number {
    return this.sql.valuesOf('select count(*) from search_embedded where embedder_id = ?').get(this.embedderId) as number;
  }

  private touch(): void {
    this.sql.rowsOf('update search_embedders set updated_at = ? where id = ?').run(new Date().toISOString(), this.embedderId);
  }
}

/** How many live vectors an embedder has in this database (0 before any embedding; sqlite-vec not needed). */
export function vectorCount(db: Db, embedderId: string): number {
  if (!hasTable(db, 'search_embedded')) return 0;
  return statementCacheOf(db).valuesOf('select count(*) from search_embedded where embedder_id = ?').get(embedderId) as number;
}

/** Every embedder with vectors in this database (none when nothing was ever embedded). */
export function embedderStatuses(db: Db): EmbedderStatus[] {
  if (!hasTable(db, 'search_embedders')) return [];
  const rows = statementCacheOf(db).rowsOf('select id, dimensions, updated_at from search_embedders order by id').all() as Array<{ id: string; dimensions: number; updated_at: string | null }>;
  const count = statementCacheOf(db).valuesOf('select count(*) from search_embedded where embedder_id = ?');
  return rows.map((r) => ({ embedderId: r.id, dimensions: r.dimensions, vectors: count.get(r.id) as number, updatedAt: r.updated_at }));
}

/** Whether a table exists: a read-only connection may see an index from before the vector migration. */
export function hasTable(db: Db, name: string): boolean {
  return statementCacheOf(db).rowsOf("select 1 from sqlite_master where type in ('table', 'view') and name = ?").get(name) !== undefined;
}

const loaded = new WeakSet<Db>();

function ensureVectorsLoaded(db: Db): void {
  if (loaded.has(db)) return;
  try {
    db.prepare('select vec_version()').get();
  } catch {
    loadVectors(db);
  }
  loaded.add(db);
}
