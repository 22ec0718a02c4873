/**
 * The chunk search index of a full build, built on a thread of its own when asked (issue #25:
 * FTS5's tokenizing is the largest serial cost left on the engine thread, ≈ 0.23 s of the
 * standard library's ≈ 1.2 s; see `useChunkIndexThread` for why it is not on by default). The engine thread posts each written chunk (its id and its four
 * indexed columns) to the thread, which inserts them into an FTS5 table of the same definition in a
 * side database beside the index. At the end of the build the engine copies that table's shadow
 * tables (`chunks_fts_data`, `_idx`, `_docsize`, `_config`) over the index's own, inside the run's
 * transaction: ≈ 60 ms of row copies instead of ≈ 230 ms of tokenizing. The stored search index is
 * the one FTS5 builds from the same rows in the same order (scripts/index-content.mjs compares every
 * term instance). The thread is the parse worker's entry (indexWorker.js) in another role, so the
 * builds need no further entry file.
 */
import { rmSync } from 'node:fs';
import type { MessagePort, Worker } from 'node:worker_threads';
import { defaultNativeBindingPath, openDatabase, type Db } from '../../platform/db/open';
import type { Chunk } from './chunks';

/** What the engine passes to the thread (workerData). */
export interface ChunkIndexThreadData {
  role: 'chunk-index';
  /** The side database (created fresh by the thread). */
  file: string;
  /** The index's own `create virtual table chunks_fts …` statement. */
  ftsSql: string;
  nativeBinding?: string;
}

/** A chunk row as the FTS table takes it: rowid, path, symbol_names, identifiers, text. */
type ChunkRow = [number, string, string, string, string];

type ToThread = { rows: ChunkRow[] } | { finish: true };
type FromThread = { done: true } | { error: string };

/** Chunk rows posted to the thread at a time (fewer, larger messages). */
const ROWS_PER_MESSAGE = 512;
/** Rows per insert statement when copying the shadow tables. */
const COPY_ROWS_PER_STATEMENT = 64;
/** The FTS5 table's shadow tables, copied in this order. */
const SHADOW_TABLES = ['chunks_fts_data', 'chunks_fts_idx', 'chunks_fts_docsize', 'chunks_fts_config'] as const;

/**
 * Whether a full build indexes its chunks on a thread of its own: only when asked
 * (`CRA_INDEX_FTS_THREAD=1`, or `parallel.chunkIndexThread`), and then only with parse workers.
 * Off by default because it did not pay where measured (issue #25, bench/README.md): on 16 quiet
 * cores the 1,000-file corpus took 2.38 s with it against 2.28 s without (4 workers, medians of 5),
 * 10,000 files 16.3 s against 17.0 s (medians of 3, ranges overlapping) for ≈ 90 MB more peak
 * memory; on 2 cores it only competes with the parse (≈ 0.1–0.4 s more CPU).
 */
export function useChunkIndexThread(workers: number, env: NodeJS.ProcessEnv = process.env): boolean {
  return workers > 0 && env.CRA_INDEX_FTS_THREAD === '1';
}

/** The side database of an index file (removed after the build; a leftover from a killed run is replaced). */
export function sideIndexFile(curatedFile: string): string {
  return `${curatedFile}.chunks-fts`;
}

/**
 * The engine's end of the thread. `written` after each file's chunks are stored, `finish` at the
 * end of the build (inside the run's transaction), `close` always. A thread that fails (it threw,
 * or died) makes `finish` return false: the caller then indexes the chunks itself.
 */
export class ChunkIndexThread {
  private rows: ChunkRow[] = [];
  private failure: string | null = null;
  private readonly outcome: Promise<FromThread>;

  private constructor(
    private readonly worker: Worker,
    private readonly file: string,
  ) {
    this.outcome = new Promise<FromThread>((resolve) => {
      worker.on('message', (message: FromThread) => resolve(message));
      worker.on('error', (error) => resolve({ error: error.message }));
      worker.on('exit', (code) => resolve({ error: `exited with code ${code}` }));
    });
    void this.outcome.then((message) => {
      if ('error' in message) this.failure = message.error;
    });
  }

  /** Start the thread with `start` (the parse worker's starter); null when it cannot start. */
  static open(db: Db, curatedFile: string, start: (data: ChunkIndexThreadData) => Worker): ChunkIndexThread | null {
    const file = sideIndexFile(curatedFile);
    const ftsSql = db.prepare("select sql from sqlite_master where type = 'table' and name = 'chunks_fts'").pluck().get() as string | undefined;
    if (!ftsSql) return null;
    try {
      removeSide(file);
      const nativeBinding = defaultNativeBindingPath();
      return new ChunkIndexThread(start({ role: 'chunk-index', file, ftsSql, ...(nativeBinding ? { nativeBinding } : {}) }), file);
    } catch (error) {
      console.warn(`[indexer] the search index thread could not start, indexing chunks in this thread: ${(error as Error).message}`);
      return null;
    }
  }

  /** A file's chunks were stored with these ids. */
  written(ids: readonly number[], path: string, chunks: readonly Chunk[]): void {
    if (this.failure !== null) return;
    for (const [i, c] of chunks.entries()) this.rows.push([ids[i]!, path, c.symbolNames, c.identifiers, c.text]);
    if (this.rows.length >= ROWS_PER_MESSAGE) this.post();
  }

  /**
   * Wait for the thread's index and copy it over the index's (emptied) chunk search index. False
   * when the thread failed: nothing was copied, and the caller indexes the chunks itself.
   */
  async finish(db: Db): Promise<boolean> {
    if (this.failure === null) {
      this.post();
      this.worker.postMessage({ finish: true } satisfies ToThread);
    }
    const outcome = await this.outcome;
    if ('error' in outcome) {
      console.warn(`[indexer] the search index thread failed, indexing chunks in this thread: ${outcome.error}`);
      return false;
    }
    copyShadowTables(db, this.file);
    return true;
  }

  /** Stop the thread (if still running) and remove the side database. */
  async close(): Promise<void> {
    await this.worker.terminate();
    removeSide(this.file);
  }

  private post(): void {
    if (this.rows.length === 0) return;
    this.worker.postMessage({ rows: this.rows } satisfies ToThread);
    this.rows = [];
  }
}

/**
 * Replace the index's chunk search index with the side database's: the shadow tables are written
 * directly (FTS5 defends them from SQL writes, hence the connection's unsafe mode for the copy).
 * The side database is read through a connection of its own (ATTACH is refused inside a transaction).
 */
function copyShadowTables(db: Db, file: string): void {
  const side = openDatabase(file, { readOnly: true });
  db.unsafeMode(true);
  try {
    for (const table of SHADOW_TABLES) {
      db.prepare(`delete from ${table}`).run();
      const columns = (side.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name);
      const row = `(${columns.map(() => '?').join(', ')})`;
      const head = `insert into ${table} (${columns.join(', ')}) values `;
      // Multi-row statements: the docsize table has a row per chunk (≈ 1.5× faster than one per row).
      const many = db.prepare(head + Array.from({ length: COPY_ROWS_PER_STATEMENT }, () => row).join(', '));
      const one = db.prepare(head + row);
      let buffer: unknown[] = [];
      for (const values of side.prepare(`select ${columns.join(', ')} from ${table}`).raw().iterate() as IterableIterator<unknown[]>) {
        buffer.push(...values);
        if (buffer.length === columns.length * COPY_ROWS_PER_STATEMENT) {
          many.run(buffer);
          buffer = [];
        }
      }
      for (let at = 0; at < buffer.length; at += columns.length) one.run(buffer.slice(at, at + columns.length));
    }
  } finally {
    db.unsafeMode(false);
    side.close();
  }
}

function removeSide(file: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

/**
 * The thread's side (run by parseWorker.ts when started in this role): insert the rows it is sent
 * into the side database's FTS table in one transaction; answer `done` once committed.
 */
export function runChunkIndexThread(port: MessagePort, data: ChunkIndexThreadData): void {
  let db: Db;
  try {
    db = openDatabase(data.file, { journal: 'rollback', synchronous: 'off', ...(data.nativeBinding ? { nativeBinding: data.nativeBinding } : {}) });
    db.exec(data.ftsSql);
    db.exec('begin');
  } catch (error) {
    port.postMessage({ error: (error as Error).message } satisfies FromThread);
    return;
  }
  const insert = db.prepare('insert into chunks_fts(rowid, path, symbol_names, identifiers, text) values (?, ?, ?, ?, ?)');
  port.on('message', (message: ToThread) => {
    try {
      if ('rows' in message) {
        for (const row of message.rows) insert.run(row);
        return;
      }
      db.exec('commit');
      db.close();
      port.postMessage({ done: true } satisfies FromThread);
    } catch (error) {
      port.postMessage({ error: (error as Error).message } satisfies FromThread);
    }
  });
}
