import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { BulkChunkIndex, finishBulkBuild } from './bulkBuild';
import { ChunkIndexThread, sideIndexFile, useChunkIndexThread } from './chunkIndexThread';
import type { Chunk } from './chunks';
import { defaultWorkerScript, startWorker } from './parse/parsePool';
import { BULK_DEFERRED_INDEXES, CURATED_MIGRATIONS, FTS_TRIGGER_NAMES } from './schema';
import { cleanupAfterEach } from '../../testing/indexerHarness';

const cleanups = cleanupAfterEach();

/** A curated database as a full build leaves it before its chunks are search-indexed: chunks of 3 files written, no FTS triggers. */
function writtenIndex(): { db: Db; curatedFile: string; files: Array<{ path: string; ids: number[]; chunks: Chunk[] }> } {
  const data = mkdtempSync(join(tmpdir(), 'cra-fts-thread-'));
  cleanups.push(() => rmSync(data, { recursive: true, force: true }));
  const curatedFile = join(data, 'curated.sqlite');
  const db = openDatabase(curatedFile, { migrations: CURATED_MIGRATIONS });
  cleanups.push(() => db.close());
  for (const name of FTS_TRIGGER_NAMES) db.exec(`drop trigger ${name}`);
  for (const index of BULK_DEFERRED_INDEXES) db.exec(`drop index ${index.name}`);
  const insertFile = db.prepare("insert into files (path, language, size, lines, indexed_at) values (?, 'python', 1, 1, 'now')");
  const insertChunk = db.prepare("insert into chunks (file_id, path, start_line, end_line, kind, symbol_names, identifiers, text) values (?, ?, ?, ?, 'function', ?, ?, ?)");
  const files = [];
  for (let f = 0; f < 3; f++) {
    const path = `pkg/mod_${f}.py`;
    const fileId = Number(insertFile.run(path).lastInsertRowid);
    const chunks: Chunk[] = Array.from({ length: 4 + f * 300 }, (_, i) => ({
      startLine: i + 1,
      endLine: i + 1,
      kind: 'function',
      symbolNames: `handler_${f}_${i}`,
      identifiers: `handler ${f} shared value`,
      text: `def handler_${f}_${i}(): return shared_value + ${i} # parsing ${i % 7 === 0 ? 'decoder' : 'scanner'}`,
    }));
    const ids = chunks.map((c) => Number(insertChunk.run(fileId, path, c.startLine, c.endLine, c.symbolNames, c.identifiers, c.text).lastInsertRowid));
    files.push({ path, ids, chunks });
  }
  return { db, curatedFile, files };
}

/** What search reads from the chunk index: ranked rows of a few queries, and FTS5's own integrity check. */
function searchOf(db: Db): unknown {
  const ranked = (q: string) => db.prepare('select rowid, round(bm25(chunks_fts), 6) from chunks_fts where chunks_fts match ? order by rank, rowid').raw().all(q);
  db.exec("insert into chunks_fts(chunks_fts, rank) values ('integrity-check', 1)");
  return { shared: ranked('shared'), decoder: ranked('decoder'), prefix: ranked('handler_2*'), path: ranked('mod_1') };
}

const realThread = (data: unknown) => startWorker(defaultWorkerScript()!, data);

describe('the search index thread of a full build', () => {
  it('builds the chunk index the engine thread would build, and leaves no side database', async () => {
    const inThread = writtenIndex();
    const bulk = new BulkChunkIndex(inThread.db);
    for (const f of inThread.files) bulk.written(f.ids);
    await finishBulkBuild(inThread.db, bulk);

    const threaded = writtenIndex();
    // A side database left by a killed run is replaced, not added to.
    const stale = openDatabase(sideIndexFile(threaded.curatedFile), { journal: 'rollback' });
    stale.exec("create virtual table chunks_fts using fts5(path, symbol_names, identifiers, text); insert into chunks_fts values ('x', 'stale', 'stale', 'decoder shared')");
    stale.close();
    const thread = ChunkIndexThread.open(threaded.db, threaded.curatedFile, realThread)!;
    expect(thread).not.toBeNull();
    try {
      for (const f of threaded.files) thread.written(f.ids, f.path, f.chunks);
      await finishBulkBuild(threaded.db, thread);
    } finally {
      await thread.close();
    }
    expect(searchOf(threaded.db)).toEqual(searchOf(inThread.db));
    expect((searchOf(threaded.db) as { shared: unknown[] }).shared).toHaveLength(4 + 304 + 604);
    expect(existsSync(sideIndexFile(threaded.curatedFile))).toBe(false);
  }, 60_000);

  it('leaves the chunks to the engine thread when the thread fails', async () => {
    const inThread = writtenIndex();
    const bulk = new BulkChunkIndex(inThread.db);
    for (const f of inThread.files) bulk.written(f.ids);
    await finishBulkBuild(inThread.db, bulk);

    const failing = writtenIndex();
    const broken = () => new Worker('throw new Error("no sqlite here")', { eval: true });
    const thread = ChunkIndexThread.open(failing.db, failing.curatedFile, broken)!;
    const warn = console.warn;
    const warnings: string[] = [];
    console.warn = (message: string) => void warnings.push(message);
    try {
      for (const f of failing.files) thread.written(f.ids, f.path, f.chunks);
      await finishBulkBuild(failing.db, thread);
    } finally {
      console.warn = warn;
      await thread.close();
    }
    expect(warnings.join('\n')).toMatch(/search index thread failed, indexing chunks in this thread: no sqlite here/);
    expect(searchOf(failing.db)).toEqual(searchOf(inThread.db));
  }, 60_000);

  it('runs only when asked, and only beside parse workers', () => {
    expect(useChunkIndexThread(4, {})).toBe(false);
    expect(useChunkIndexThread(4, { CRA_INDEX_FTS_THREAD: '1' })).toBe(true);
    expect(useChunkIndexThread(0, { CRA_INDEX_FTS_THREAD: '1' })).toBe(false);
    expect(useChunkIndexThread(4, { CRA_INDEX_FTS_THREAD: '0' })).toBe(false);
  });
});
