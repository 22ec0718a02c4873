import { throwIfAborted } from '../runtime/runs';
import type { Extractor } from './extract/extractor';
import { detectLanguage } from './extract/languages';
import type { ParsedLanguage } from './extract/types';
import { defaultPoolSize, defaultWorkerScript, MIN_FILES_FOR_WORKERS, ParsePool } from './parsePool';
import { extractWith, prepareFile, type ExtractFn, type PrepareJob, type PreparedFile } from './prepare';

/** How files are parsed: in worker threads (when there are enough of them) or in this thread. */
export interface ParallelOptions {
  /** Worker count; 0 parses in this thread. Default: `defaultPoolSize()` (min(2, cores); 0 on a saturated machine). */
  workers?: number;
  /** Fewest files for which workers start (default MIN_FILES_FOR_WORKERS). */
  minFiles?: number;
  /** Worker entry file (default: indexWorker.js beside the indexer; absent → this thread). */
  script?: string | null;
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
 * Start preparing `jobs`. With workers, jobs run ahead in a bounded window while the caller writes
 * the results; a job a worker could not do is redone here as text only, so a worker failure never
 * fails the index. Cancelling (the signal) stops the workers at once.
 */
export function openPreparer(
  jobs: readonly PrepareJob[],
  options: { extractor: () => Promise<Extractor>; signal?: AbortSignal; parallel?: ParallelOptions },
): Preparer {
  const size = options.parallel?.workers ?? defaultPoolSize();
  const script = options.parallel?.script === undefined ? defaultWorkerScript() : options.parallel.script;
  if (size > 0 && script && jobs.length >= (options.parallel?.minFiles ?? MIN_FILES_FOR_WORKERS)) {
    try {
      return pooled(jobs, new ParsePool({ script, size, languages: languagesOf(jobs) }), options.signal);
    } catch (error) {
      console.warn(`[indexer] parse workers could not start, parsing in this thread: ${(error as Error).message}`);
    }
  }
  return inThread(jobs, options.extractor);
}

function pooled(jobs: readonly PrepareJob[], pool: ParsePool, signal: AbortSignal | undefined): Preparer {
  const started: Array<Promise<PreparedFile>> = [];
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
        throwIfAborted(signal);
        console.warn(`[indexer] ${jobs[index]!.relPath} indexed as text: ${(error as Error).message}`);
        return prepareFile(jobs[index]!, null);
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

function inThread(jobs: readonly PrepareJob[], getExtractor: () => Promise<Extractor>): Preparer {
  let extract: ExtractFn | null = null;
  let cursor = 0;
  const ensureExtractor = async (): Promise<ExtractFn> => {
    if (extract) return extract;
    const extractor = await getExtractor();
    // Grammars load one at a time, all before the first parse of this run.
    for (const language of languagesOf(jobs.slice(cursor))) {
      try {
        await extractor.load([language]);
      } catch (error) {
        console.warn(`[indexer] ${(error as Error).message}`);
      }
    }
    return (extract = extractWith(extractor));
  };
  return {
    parallel: false,
    async next() {
      const job = jobs[cursor]!;
      const fn = detectLanguage(job.relPath) ? await ensureExtractor() : null;
      cursor++;
      return prepareFile(job, fn);
    },
    close: async () => undefined,
  };
}
