import { throwIfAborted } from '../../../platform/runtime/runs';
import { claim, CLAIMED_HERE, claimTable } from './claims';
import type { Extractor } from '../extract/extractor';
import { detectLanguage } from '../extract/languages';
import type { ParsedLanguage } from '../extract/types';
import { defaultPoolSize, defaultWorkerScript, MIN_FILES_FOR_WORKERS, ParseJobError, ParsePool } from './parsePool';
import { extractWith, prepareFile, type ExtractFn, type PrepareJob, type PreparedFile } from './prepare';

/** How files are parsed: in worker threads (when there are enough of them) or in this thread. */
export interface ParallelOptions {
  /** Worker count; 0 parses in this thread only. Default: `defaultPoolSize()` (cores − 1, at most 4, as free memory allows; 0 on one core or an overloaded machine). */
  workers?: number;
  /** Fewest files for which workers start (default MIN_FILES_FOR_WORKERS). */
  minFiles?: number;
  /** Worker entry file (default: indexWorker.js beside parsePool.ts; absent → this thread). */
  script?: string | null;
  /** This thread parses too, between writes, the files no worker has taken (default: true). */
  mainParses?: boolean;
  /** A full build indexes its chunks on a thread of its own (default: `useChunkIndexThread`, off unless CRA_INDEX_FTS_THREAD=1; chunkIndexThread.ts). */
  chunkIndexThread?: boolean;
}

/** Prepared files, in job order; `close` stops any workers. */
export interface Preparer {
  /** Whether the files are parsed in worker threads. */
  readonly parallel: boolean;
  next(): Promise<PreparedFile>;
  close(): Promise<void>;
}

/** Jobs in flight ahead of the one being written (bounds memory while workers run ahead). */
const WINDOW = 32;

/** Parsed languages among the jobs, in first-seen order. */
export function languagesOf(jobs: readonly PrepareJob[]): ParsedLanguage[] {
  const out = new Set<ParsedLanguage>();
  for (const job of jobs) {
    const language = detectLanguage(job.relPath);
    if (language) out.add(language);
  }
  return [...out];
}

/**
 * Start preparing `jobs`, results in job order. With workers, they parse ahead while the caller
 * writes the results and (by default) this thread parses the rest between writes. A worker failure
 * never fails the index: the file a worker failed on is indexed as text only, files no worker is
 * left to take are parsed here (`recover`). Cancelling (the signal) stops the workers at once.
 * This thread parsing between writes beat one more worker with this thread only writing (docs/indexing.md).
 */
export function openPreparer(
  jobs: readonly PrepareJob[],
  options: { extractor: () => Promise<Extractor>; signal?: AbortSignal; parallel?: ParallelOptions },
): Preparer {
  const size = options.parallel?.workers ?? defaultPoolSize();
  const script = options.parallel?.script === undefined ? defaultWorkerScript() : options.parallel.script;
  if (size > 0 && script && jobs.length >= (options.parallel?.minFiles ?? MIN_FILES_FOR_WORKERS)) {
    try {
      const helping = options.parallel?.mainParses ?? true;
      const claims = helping ? claimTable(jobs.length) : undefined;
      const pool = new ParsePool({ script, size, languages: languagesOf(jobs), ...(claims ? { inFlight: HELP_PER_WORKER, claims } : {}) });
      if (claims) return helped(jobs, pool, size, claims, options.extractor, options.signal);
      return pooled(jobs, pool, options.extractor, options.signal);
    } catch (error) {
      console.warn(`[indexer] parse workers could not start, parsing in this thread: ${(error as Error).message}`);
    }
  }
  return inThread(jobs, options.extractor);
}

function pooled(jobs: readonly PrepareJob[], pool: ParsePool, getExtractor: () => Promise<Extractor>, signal: AbortSignal | undefined): Preparer {
  const started: Array<Promise<PreparedFile>> = [];
  const local = localParser(jobs, getExtractor);
  const onAbort = () => void pool.terminate();
  signal?.addEventListener('abort', onAbort, { once: true });
  let cursor = 0;
  const fill = () => {
    while (started.length < jobs.length && started.length < cursor + WINDOW) started.push(pool.prepare(jobs[started.length]!));
  };
  return {
    parallel: true,
    async next() {
      fill();
      const index = cursor++;
      try {
        return await started[index]!;
      } catch (error) {
        return recover(jobs, index, error as Error, local, signal);
      } finally {
        delete started[index];
        fill();
      }
    },
    async close() {
      signal?.removeEventListener('abort', onAbort);
      await pool.terminate();
    },
  };
}

/** How far ahead of the file being written the workers' files start (this thread parses the ones before). */
const HELP_LEAD = 48;
/** Files handed to each worker at a time in helped mode. */
const HELP_PER_WORKER = 32;

/**
 * Workers and this thread parse together, results still in job order. Workers take files from
 * `HELP_LEAD` ahead of the one being written; this thread parses the files no worker took when it
 * reaches them. A file handed to a worker is prepared by whichever thread claims it first (a claim
 * table shared with the workers, claims.ts): this thread takes the file it must write next if the
 * worker has not started it, and while that file is still being parsed there, it parses the next
 * file of the workers' frontier, or once every file is handed out, the last one still queued at a
 * worker (the worker skips it). So neither side waits for the other until the last file: at the
 * end of a run a worker's queue is shared instead of waited for. Saves what a further worker
 * costs (its start, copying its results back) where this thread would otherwise wait.
 */
function helped(jobs: readonly PrepareJob[], pool: ParsePool, workers: number, claims: Int32Array, getExtractor: () => Promise<Extractor>, signal: AbortSignal | undefined): Preparer {
  /** Files handed to a worker whose outcome is not back: their promise (null when this thread claimed it). */
  const taken = new Map<number, Promise<PreparedFile | null>>();
  const settled = new Map<number, { result: PreparedFile | null } | { error: Error }>();
  /** Files this thread parsed ahead of their turn. */
  const ahead = new Map<number, PreparedFile>();
  const local = localParser(jobs, getExtractor);
  const onAbort = () => void pool.terminate();
  signal?.addEventListener('abort', onAbort, { once: true });
  let cursor = 0;
  let frontier = HELP_LEAD;
  let outstanding = 0;
  const fill = () => {
    frontier = Math.max(frontier, cursor + HELP_LEAD);
    while (pool.alive && outstanding < workers * HELP_PER_WORKER && frontier < jobs.length) {
      const index = frontier++;
      outstanding++;
      const promise = pool.prepareClaimable(jobs[index]!, index);
      taken.set(index, promise);
      // Outcomes of files this thread has taken back (and forgotten) are not kept.
      promise.then(
        (result) => taken.has(index) && settled.set(index, { result }),
        (error: unknown) => taken.has(index) && settled.set(index, { error: error as Error }),
      );
      promise
        .finally(() => {
          outstanding--;
          fill();
        })
        .catch(() => undefined);
    }
  };
  /** A file this thread may parse now while waiting: the next unassigned one, else the last one a worker has not started. */
  const toSteal = (waitingFor: number): number | null => {
    if (frontier < jobs.length) return frontier++;
    for (let i = frontier - 1; i > waitingFor; i--) {
      // A file a worker answered for, or this thread took already, is claimed: the claim fails.
      if (taken.has(i) && claim(claims, i, CLAIMED_HERE)) return i;
    }
    return null;
  };
  /** Let the workers' answers in (and hand them more files). */
  const yieldToWorkers = () => new Promise((resolve) => setImmediate(resolve));
  const forget = (index: number) => {
    taken.delete(index);
    settled.delete(index);
  };
  return {
    parallel: true,
    async next() {
      const index = cursor++;
      fill();
      const early = ahead.get(index);
      if (early) {
        ahead.delete(index);
        forget(index);
        return early;
      }
      if (!taken.has(index) || claim(claims, index, CLAIMED_HERE)) {
        forget(index);
        const result = await local.at(index);
        await yieldToWorkers();
        return result;
      }
      // A worker is parsing this file: meanwhile parse another one here.
      while (!settled.has(index)) {
        throwIfAborted(signal);
        const stolen = toSteal(index);
        if (stolen === null) break;
        ahead.set(stolen, await local.at(stolen));
        await yieldToWorkers();
      }
      const outcome = settled.get(index) ?? (await taken.get(index)!.then((result) => ({ result }), (error: unknown) => ({ error: error as Error })));
      forget(index);
      if ('error' in outcome) return recover(jobs, index, outcome.error, local, signal);
      // The worker claimed the file before this thread could, so it answered with the result.
      if (outcome.result === null) throw new Error(`parse worker skipped ${jobs[index]!.relPath}, which it had claimed`);
      return outcome.result;
    },
    async close() {
      signal?.removeEventListener('abort', onAbort);
      await pool.terminate();
    },
  };
}

/**
 * A job a worker gave no result for: parsed here when no worker was left to take it; the file that
 * failed in a worker (it threw, or the worker died on it) is indexed as text only.
 */
function recover(jobs: readonly PrepareJob[], index: number, error: Error, local: LocalParser, signal: AbortSignal | undefined): Promise<PreparedFile> | PreparedFile {
  throwIfAborted(signal);
  if (error instanceof ParseJobError && !error.culprit) return local.at(index);
  console.warn(`[indexer] ${jobs[index]!.relPath} indexed as text: ${error.message}`);
  return prepareFile(jobs[index]!, null);
}

function inThread(jobs: readonly PrepareJob[], getExtractor: () => Promise<Extractor>): Preparer {
  const local = localParser(jobs, getExtractor);
  let cursor = 0;
  return {
    parallel: false,
    next: () => local.at(cursor++),
    close: async () => undefined,
  };
}

/** Prepares jobs by index in this thread, loading the extractor (and the jobs' grammars) on first need. */
interface LocalParser {
  at(index: number): Promise<PreparedFile>;
}

function localParser(jobs: readonly PrepareJob[], getExtractor: () => Promise<Extractor>): LocalParser {
  let extract: Promise<ExtractFn> | null = null;
  const ensureExtractor = async (from: number): Promise<ExtractFn> => {
    const extractor = await getExtractor();
    // Grammars load one at a time, all before the first parse of this run.
    for (const language of languagesOf(jobs.slice(from))) {
      try {
        await extractor.load([language]);
      } catch (error) {
        console.warn(`[indexer] ${(error as Error).message}`);
      }
    }
    return extractWith(extractor);
  };
  return {
    async at(index) {
      const job = jobs[index]!;
      const fn = detectLanguage(job.relPath) ? await (extract ??= ensureExtractor(index)) : null;
      return prepareFile(job, fn);
    },
  };
}
