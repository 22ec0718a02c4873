import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexSummary } from '../../../shared/contract';
import { openDatabase, type Db } from '../../platform/db/open';
import { throwIfAborted } from '../../platform/runtime/runs';
import { BulkChunkIndex, disableForeignKeys, finishBulkBuild, isEmptyIndex, restoreWal, startBulkBuild, useRollbackJournal } from './bulkBuild';
import { ChunkIndexThread, useChunkIndexThread } from './chunkIndexThread';
import { pathTokens } from './chunks';
import type { Extractor } from './extract/extractor';
import { textLanguageOf } from './extract/languages';
import { createImportResolver } from './extract/resolve';
import type { ParsedLanguage } from './extract/types';
import { gitHead } from './git';
import { acquireIndexLock } from './indexLock';
import { getMeta, readGitHistory, setMeta, writeGitHistory } from './gitHistory';
import { Linker, type ResolveImport, type WrittenFile } from './link';
import { PendingReferences } from './pendingRefs';
import { PhaseClock, type IndexProgress } from './phaseClock';
import type { PrepareJob, PreparedFile } from './parse/prepare';
import { defaultPoolSize, defaultWorkerScript, MIN_FILES_FOR_WORKERS, startWorker } from './parse/parsePool';
import { openPreparer, type ParallelOptions } from './parse/preparer';
import { DEFAULT_MAX_FILE_BYTES } from './read';
import { isTestPath, listFiles, type Listing } from './scan';
import { CURATED_MIGRATIONS, INDEX_VERSION } from './schema';
import { CuratedWriter, type StoredFile } from './store';
import { rebuildTestLinks } from './testLinks';

/** Builds an import resolver over the repository's file list. */
export type ResolverFactory = (files: string[], readFile: (path: string) => string | null) => ResolveImport;

/** The real import resolver of the extract module. */
export const defaultResolver: ResolverFactory = (files, readFile) => {
  const resolver = createImportResolver({ files, readFile });
  return (fromPath, imp, language) => resolver.resolve(fromPath, imp, language);
};

/** How to index one repository. */
export interface IndexOptions {
  /** Absolute path of the repository (already validated). */
  root: string;
  curatedFile: string;
  /** The tree-sitter extractor, created on first need. */
  extractor: () => Promise<Extractor>;
  /** Import resolution (default: `defaultResolver`). */
  resolver?: ResolverFactory;
  signal?: AbortSignal;
  progress?: (update: IndexProgress) => void;
  /** Re-parse everything and re-read git history. */
  full?: boolean;
  maxFileBytes?: number;
  maxCommits?: number;
  maxFilesPerCommit?: number;
  /** Parsing in worker threads (default: `defaultPoolSize()` workers — cores − 1, at most 4, as free memory allows — when ≥ 50 files are to be parsed and cores are free). */
  parallel?: ParallelOptions;
  /** How long to wait for another index run of the same repository before DB_LOCKED (see acquireIndexLock). */
  lockWaitMs?: number;
  /** References read back per batch when linking (default PENDING_BATCH; tests set a small one). */
  referenceBatch?: number;
  /** References kept in memory before they spill to a temporary table (default PENDING_SPILL_ROWS; tests set 0 or a small one). */
  referenceSpill?: number;
}

/** Page cache of the indexing connection, in KiB. */
const INDEX_CACHE_KIB = 64 * 1024;

/** Default bound on the commits read on a full git pass. */
export const DEFAULT_MAX_COMMITS = 5000;
/** Default bound on files per commit for co-change counting. */
export const DEFAULT_MAX_FILES_PER_COMMIT = 30;

const PARSED = new Set<string>(['python', 'typescript', 'tsx', 'javascript', 'go', 'java', 'csharp', 'rust', 'c', 'cpp']);
const isParsed = (language: string): language is ParsedLanguage => PARSED.has(language);

/**
 * Index (or incrementally re-index) a repository into its curated database. Everything is written
 * in one transaction: an interrupted, cancelled or failed run rolls back and leaves the previous
 * index intact and readable. Only added/changed files (size/mtime, then content hash) are parsed.
 */
export async function indexRepository(options: IndexOptions): Promise<IndexSummary> {
  const started = performance.now();
  const clock = new PhaseClock(options.progress);
  const report = clock.report;
  // One run per repository at a time, across processes (the app and the CLI): a second one waits.
  const lock = await acquireIndexLock(options.curatedFile, {
    waitMs: options.lockWaitMs,
    signal: options.signal,
    onWait: () => report({ phase: 'waiting', done: 0, message: WAITING_MESSAGE }),
  });
  try {
    return await indexLocked(options, clock, started);
  } finally {
    lock.release();
  }
}

/** The progress message of a run that waits for another index of its repository. */
export const WAITING_MESSAGE = 'Waiting for another index of this repository to finish';

async function indexLocked(options: IndexOptions, clock: PhaseClock, started: number): Promise<IndexSummary> {
  const report = clock.report;
  report({ phase: 'scanning', done: 0, message: 'Listing files' });
  // HEAD is read alongside the listing (both are git calls; gitHead never rejects).
  const head = gitHead(options.root);
  const listing = await listFiles(options.root, options.signal);
  throwIfAborted(options.signal);
  const db = openDatabase(options.curatedFile, { migrations: CURATED_MIGRATIONS });
  try {
    // A full build writes tens of MB in one transaction: a page cache that holds it avoids spilling
    // dirty pages to the WAL mid-transaction and re-reading index pages (default is 2 MB).
    db.pragma(`cache_size = -${INDEX_CACHE_KIB}`);
    const full = options.full === true || getMeta(db, 'index_version') !== String(INDEX_VERSION);
    // A full build rewrites every row itself (bulkBuild.ts); an empty index's first one commits without the WAL.
    if (full) disableForeignKeys(db);
    const firstBuild = full && isEmptyIndex(db) && useRollbackJournal(db);
    db.exec('begin immediate');
    try {
      const counts = await runInTransaction(db, listing, { ...options, progress: report, head, full });
      report({ phase: 'saving', done: 0, message: 'Writing the index' });
      db.exec('commit');
      return { ...summarize(db), durationMs: Math.round(performance.now() - started), ...counts, phaseMs: clock.stop() };
    } catch (error) {
      if (db.inTransaction) db.exec('rollback');
      throw error;
    } finally {
      if (firstBuild) restoreWal(db);
    }
  } finally {
    db.close();
  }
}

async function runInTransaction(db: Db, listing: Listing, options: IndexOptions & { head: Promise<string | null>; full: boolean }): Promise<{ parsed: number; removed: number }> {
  const writer = new CuratedWriter(db);
  const full = options.full;
  // `git log` runs while the files are parsed; it is stopped if the run ends before it is read.
  const gitStop = new AbortController();
  const stopGit = () => gitStop.abort();
  options.signal?.addEventListener('abort', stopGit, { once: true });
  const git = readGitHistory(db, options.root, listing.isGit, {
    signal: gitStop.signal,
    maxCommits: options.maxCommits ?? DEFAULT_MAX_COMMITS,
    full,
    head: options.head,
  });
  git.catch(() => undefined);
  const pending = new PendingReferences(db, options.referenceBatch, options.referenceSpill);
  // The pool size is settled once, for the parse and for the search index thread.
  const parallel: ParallelOptions = { ...options.parallel, workers: options.parallel?.workers ?? defaultPoolSize() };
  let chunkIndex: BulkChunkIndex | ChunkIndexThread | null = null;
  try {
    if (full) startBulkBuild(db);
    if (full) chunkIndex = openChunkIndex(db, options.curatedFile, listing.files.length, parallel);
    const stored = writer.storedFiles();
    const removed = removeMissing(writer, stored, listing);
    const parse = await parseChanged(writer, stored, listing, { ...options, parallel }, chunkIndex, pending);
    const fileSetChanged = full || removed > 0 || parse.added > 0;
    const changedAnything = fileSetChanged || parse.changed.size > 0;
    if (changedAnything) {
      options.progress?.({ phase: 'references', done: 0, message: 'Resolving imports and references' });
      linkFiles(db, options, fileSetChanged, parse, pending);
      rebuildTestLinks(db);
    }
    throwIfAborted(options.signal);
    options.progress?.({ phase: 'git history', done: 0, message: 'Reading commits' });
    writeGitHistory(db, await git, options.maxFilesPerCommit ?? DEFAULT_MAX_FILES_PER_COMMIT);
    throwIfAborted(options.signal);
    options.progress?.({ phase: 'search index', done: 0, message: 'Finishing the search index' });
    if (chunkIndex) await finishBulkBuild(db, chunkIndex);
    setMeta(db, 'index_version', String(INDEX_VERSION));
    setMeta(db, 'indexed_at', new Date().toISOString());
    return { parsed: parse.parsed, removed };
  } finally {
    options.signal?.removeEventListener('abort', stopGit);
    stopGit();
    pending.close();
    if (chunkIndex instanceof ChunkIndexThread) await chunkIndex.close();
  }
}

/**
 * The chunk search index of a full build: in batches on this thread, or on a thread of its own
 * when asked and the parse runs in workers (chunkIndexThread.ts).
 */
function openChunkIndex(db: Db, curatedFile: string, files: number, parallel: ParallelOptions): BulkChunkIndex | ChunkIndexThread {
  const script = parallel.script === undefined ? defaultWorkerScript() : parallel.script;
  const threaded = script && files >= (parallel.minFiles ?? MIN_FILES_FOR_WORKERS) && (parallel.chunkIndexThread ?? useChunkIndexThread(parallel.workers ?? 0));
  return (threaded && ChunkIndexThread.open(db, curatedFile, (data) => startWorker(script, data))) || new BulkChunkIndex(db);
}

function removeMissing(writer: CuratedWriter, stored: Map<string, StoredFile>, listing: Listing): number {
  const present = new Set([...listing.files.map((f) => f.path), ...listing.submodules]);
  let removed = 0;
  for (const [path, file] of stored) {
    if (present.has(path)) continue;
    writer.deleteFile(file.id);
    stored.delete(path);
    removed++;
  }
  for (const path of listing.submodules) {
    if (stored.has(path)) continue;
    writer.writeFile(
      { path, language: 'submodule', size: 0, lines: 0, contentHash: null, mtimeMs: 0, isTest: false, skipReason: 'submodule', encoding: null, hasSyntaxErrors: false, moduleDoc: null, pathTokens: pathTokens(path) },
      undefined,
    );
  }
  return removed;
}

interface ParseResult {
  parsed: number;
  added: number;
  changed: Set<number>;
  /** Parsed files written by this run, for the linker. */
  written: Map<number, WrittenFile>;
  /** Other files with references into a rewritten file (their stored references are re-resolved). */
  referrers: Set<number>;
}

async function parseChanged(
  writer: CuratedWriter,
  stored: Map<string, StoredFile>,
  listing: Listing,
  options: IndexOptions,
  chunkIndex: BulkChunkIndex | ChunkIndexThread | null,
  pending: PendingReferences,
): Promise<ParseResult> {
  const work = listing.files.filter((f) => {
    const s = stored.get(f.path);
    return !s || s.size !== f.size || s.mtimeMs !== f.mtimeMs;
  });
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  // Jobs name the root once, not a joined path each: held for the whole parse, 50k joined paths were ≈ 25 MB.
  const jobs: PrepareJob[] = work.map((f) => {
    const known = stored.get(f.path);
    return { root: options.root, relPath: f.path, size: f.size, maxFileBytes, knownHash: known?.contentHash ?? null, knownSkipReason: known?.skipReason ?? null };
  });
  const result: ParseResult = { parsed: 0, added: 0, changed: new Set(), written: new Map(), referrers: new Set() };
  if (jobs.length === 0) return result;
  const preparer = openPreparer(jobs, { extractor: options.extractor, signal: options.signal, parallel: options.parallel });
  options.progress?.({ phase: 'parsing', done: 0, total: work.length, message: preparer.parallel ? 'Starting the parse workers' : 'Loading the parsers' });
  try {
    const started = performance.now();
    let lastYield = performance.now();
    for (const [i, f] of work.entries()) {
      if (!preparer.parallel && performance.now() - lastYield > 50) {
        // Let run/cancel and other requests through during a long parse in this thread.
        await new Promise((resolve) => setImmediate(resolve));
        lastYield = performance.now();
      }
      throwIfAborted(options.signal);
      const prepared = await preparer.next();
      throwIfAborted(options.signal);
      writePrepared(writer, pending, f, prepared, stored.get(f.path), result, chunkIndex);
      const done = i + 1;
      const rate = done / Math.max((performance.now() - started) / 1000, 1e-3);
      options.progress?.({ phase: 'parsing', done, total: work.length, rate: Math.round(rate * 10) / 10, etaSeconds: Math.ceil((work.length - done) / rate), message: f.path });
    }
  } finally {
    await preparer.close();
  }
  return result;
}

function writePrepared(
  writer: CuratedWriter,
  pending: PendingReferences,
  f: Listing['files'][number],
  prepared: PreparedFile,
  existing: StoredFile | undefined,
  result: ParseResult,
  chunkIndex: BulkChunkIndex | ChunkIndexThread | null,
): void {
  if (existing && prepared.unchanged) {
    writer.touchFile(existing.id, f.mtimeMs, f.size);
    return;
  }
  // Files whose references point into this one lose those targets when its symbols are rewritten.
  if (existing) for (const id of writer.referrersOf(existing.id)) result.referrers.add(id);
  const extraction = prepared.extraction;
  const fileId = writer.writeFile(
    {
      path: f.path,
      language: textLanguageOf(f.path),
      size: f.size,
      lines: prepared.lines,
      contentHash: prepared.hash,
      mtimeMs: f.mtimeMs,
      isTest: isTestPath(f.path),
      skipReason: prepared.skipReason,
      encoding: prepared.encoding,
      hasSyntaxErrors: extraction?.hasSyntaxErrors ?? false,
      moduleDoc: extraction?.moduleDoc ?? null,
      pathTokens: pathTokens(f.path),
    },
    existing?.id,
  );
  if (extraction) {
    const symbols = writer.writeExtraction(fileId, extraction);
    // References are staged in SQLite, not held until linking (a large repository has millions).
    result.written.set(fileId, { firstSymbolId: symbols[0]?.id ?? null, references: pending.add(fileId, symbols, extraction.references) });
  }
  if (prepared.chunks) {
    const ids = writer.writeChunks(fileId, f.path, prepared.chunks);
    chunkIndex?.written(ids, f.path, prepared.chunks);
  }
  result.changed.add(fileId);
  // A file recorded with a skip reason (binary, generated …) was read, not parsed.
  if (prepared.skipReason === null) result.parsed++;
  if (!existing) result.added++;
}

/**
 * Resolve imports and references. A changed file set re-links every file; otherwise the changed
 * files' imports, then the references of the changed files (inserted resolved) and of the files
 * that import them or referred into them (stored references re-targeted: their targets in a
 * rewritten file were nulled).
 */
function linkFiles(db: Db, options: IndexOptions, fileSetChanged: boolean, parse: ParseResult, pending: PendingReferences): void {
  const paths = (db.prepare('select path from files where skip_reason is null').pluck().all() as string[]).sort();
  const readFile = (path: string): string | null => {
    try {
      return readFileSync(join(options.root, path), 'utf8');
    } catch {
      return null;
    }
  };
  const linker = new Linker(db, (options.resolver ?? defaultResolver)(paths, readFile), isParsed, parse.written, pending);
  if (fileSetChanged) {
    linker.linkImports('all');
    linker.insertReferences();
    linker.updateReferences('all');
    return;
  }
  linker.linkImports(parse.changed);
  const dependents = db
    .prepare(`select distinct from_file_id from file_dependencies where to_file_id in (${[...parse.changed].join(',') || '0'})`)
    .pluck()
    .all() as number[];
  linker.insertReferences();
  linker.updateReferences(new Set([...dependents, ...parse.referrers]));
}

function summarize(db: Db): Omit<IndexSummary, 'durationMs' | 'parsed' | 'removed' | 'phaseMs'> {
  const count = (sql: string) => (db.prepare(sql).pluck().get() as number) ?? 0;
  return {
    files: count('select count(*) from files where skip_reason is null'),
    symbols: count('select count(*) from symbols'),
    references: count('select count(*) from symbol_references'),
    dependencies: count('select count(*) from file_dependencies'),
    commits: count('select count(*) from commits'),
    coChangePairs: count('select count(*) from co_changes'),
    chunks: count('select count(*) from chunks'),
    skipped: db.prepare('select path, skip_reason as reason from files where skip_reason is not null order by path').all() as IndexSummary['skipped'],
  };
}

/** Files per language of an index (indexed files only). */
export function languageCounts(db: Db): Record<string, number> {
  const rows = db.prepare('select language, count(*) as n from files where skip_reason is null group by language order by n desc').all() as Array<{ language: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.language, r.n]));
}
