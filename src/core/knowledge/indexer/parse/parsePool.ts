import { existsSync } from 'node:fs';
import { availableParallelism, freemem, loadavg } from 'node:os';
import { join } from 'node:path';
import { workerThreads } from '../../../platform/nodeModules';
import type { Worker } from 'node:worker_threads';
import type { ParsedLanguage } from '../extract/types';
import type { ParseRequest, ParseResponse, ParseWorkerData } from './parseWorker';
import type { PrepareJob, PreparedFile } from './prepare';

/** Below this many files to prepare, the indexer parses in its own thread (worker start-up would dominate). */
export const MIN_FILES_FOR_WORKERS = 50;
/**
 * Jobs handed to one worker before it answers: it keeps parsing while the main thread writes (the
 * pool only hands out more from the main thread). 4 measured best of 2, 4 and 8 (docs/indexing.md): more in flight unbalances the workers' last files.
 */
const PER_WORKER_IN_FLIGHT = 4;
/** Crashed workers replaced per pool before the remaining jobs are refused (the caller then falls back). */
const MAX_RESTARTS = 2;

/**
 * The worker entry file: `indexWorker.js` beside this module. From the sources that is the small
 * loader that registers tsx; in the Electron bundle (out/main) it is the bundled worker. Null when
 * absent, so the indexer parses in its own thread.
 */
export function defaultWorkerScript(): string | null {
  const file = join(__dirname, 'indexWorker.js');
  return existsSync(file) ? file : null;
}

/** Load average per core from which the indexer stops starting parse workers. */
const OVERLOAD_FACTOR = 3;

/**
 * Memory one more parse worker may take at its peak (its own heap, the WASM parser and the
 * extractions in flight). Measured (issue #25): the index's peak RSS grows ~22 MB per worker on the
 * standard library and ~64 MB per worker on 50,000 files; this leaves room above that.
 */
export const WORKER_BYTES = 96 * 2 ** 20;
/** Free memory kept for the engine thread (the index being written) and the system before any worker starts. */
export const RESERVED_BYTES = 512 * 2 ** 20;
/**
 * Most workers by default. Past 4 the full index stopped getting faster (issue #25, the stdlib on
 * 16 cores: 2 → 3.7 s, 4 → 2.96 s, 8 → 2.92 s, 15 → 3.23 s at twice the memory): the serial part
 * (links, writes) is the limit, and each worker costs memory.
 */
export const MAX_WORKERS = 4;

/**
 * Default pool size: one worker per core beside the engine thread (which parses too, see
 * preparer.ts), at most {@link MAX_WORKERS}, and no more than free memory allows after
 * {@link RESERVED_BYTES} at {@link WORKER_BYTES} each. 0 (parse in this thread) on one core, when
 * memory is short, or when the machine is heavily overloaded (1-minute load average at or above
 * three times the core count). A load near the core count is normal on a 2-core machine (an
 * earlier index run alone leaves about 2), and workers still win there; at three times the core
 * count the pool only added contention (figures: docs/indexing.md). CRA_PARSE_WORKERS=N forces
 * the size (experiments: the scaling figures in bench/README.md).
 */
export function defaultPoolSize(cores = availableParallelism(), load = loadavg()[0] ?? 0, free = freemem(), env: NodeJS.ProcessEnv = process.env): number {
  const forced = env.CRA_PARSE_WORKERS;
  if (forced !== undefined && /^\d{1,2}$/.test(forced)) return Number(forced);
  if (cores < 2 || load >= cores * OVERLOAD_FACTOR) return 0;
  const byMemory = Math.max(0, Math.floor((free - RESERVED_BYTES) / WORKER_BYTES));
  return Math.min(cores - 1, MAX_WORKERS, byMemory);
}

/**
 * The Node flags a worker inherits, less TypeScript loader flags (`--import tsx`, `--require tsx`,
 * `--loader tsx`): the worker entry registers what it needs itself, and an inherited ESM loader
 * starts a hooks thread in every worker (start-up time in every worker).
 */
export function workerExecArgv(argv: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  const isTsx = (value: string) => /(^|[/\\])tsx([/\\]|$)/.test(value);
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const joined = /^--(?:import|require|loader|experimental-loader)=(.*)$/.exec(flag);
    if (joined) {
      if (!isTsx(joined[1]!)) out.push(flag);
    } else if (/^(--import|--require|-r|--loader|--experimental-loader)$/.test(flag) && i + 1 < argv.length) {
      const value = argv[++i]!;
      if (!isTsx(value)) out.push(flag, value);
    } else {
      out.push(flag);
    }
  }
  return out;
}

/**
 * A worker with the parent's flags less tsx loaders. Node refuses some flags in a worker's explicit
 * `execArgv` (V8 and per-process options such as `--no-liftoff`) that it accepts when inherited:
 * then the worker inherits them as by default.
 */
export function startWorker(script: string, workerData: unknown): Worker {
  const execArgv = workerExecArgv();
  const { Worker } = workerThreads();
  if (execArgv.length === process.execArgv.length) return new Worker(script, { workerData });
  try {
    return new Worker(script, { workerData, execArgv });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
    return new Worker(script, { workerData });
  }
}

/** Options of a ParsePool. */
export interface ParsePoolOptions {
  /** Worker entry file (default: `defaultWorkerScript()`). */
  script: string;
  size: number;
  /** Grammars each worker loads before its first parse. */
  languages: ParsedLanguage[];
  /** Jobs handed to one worker before it answers (default PER_WORKER_IN_FLIGHT). */
  inFlight?: number;
  /** A claim table (claims.ts) shared with the workers, for `prepareClaimable`. */
  claims?: Int32Array;
}

/**
 * Why a job came back without a result. `culprit`: the file itself failed in a worker (it threw, or
 * the worker died preparing it), so parsing it again elsewhere is not worth the risk; otherwise no
 * worker was left to take it.
 */
export class ParseJobError extends Error {
  constructor(
    message: string,
    readonly culprit: boolean,
  ) {
    super(message);
    this.name = 'ParseJobError';
  }
}

interface Pending {
  id: number;
  job: PrepareJob;
  claim?: number;
  /** null: another thread claimed the job (only for claimable jobs). */
  resolve(result: PreparedFile | null): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  inFlight: Map<number, Pending>;
}

/**
 * A small pool of parse workers. `prepare` resolves with the worker's result, or rejects when the
 * file could not be prepared there (the worker threw, or died while preparing it): the caller then
 * indexes that file as text. A dead worker is replaced (a bounded number of times; after that the
 * remaining jobs reject). `terminate` stops every worker at once and rejects what is outstanding.
 */
export class ParsePool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private restarts = 0;
  private closed = false;

  constructor(private readonly options: ParsePoolOptions) {
    try {
      for (let i = 0; i < options.size; i++) this.spawn();
    } catch (error) {
      // Workers that did start must not outlive a pool that never existed for its caller.
      void this.terminate();
      throw error;
    }
  }

  /** Prepare one file in a worker. The promise never goes unhandled if the caller drops it. */
  prepare(job: PrepareJob): Promise<PreparedFile> {
    return this.enqueue(job, undefined) as Promise<PreparedFile>;
  }

  /**
   * Prepare job `claim` of the pool's claim table in a worker unless another thread claims it
   * first: then the promise resolves with null and the worker skips the file.
   */
  prepareClaimable(job: PrepareJob, claim: number): Promise<PreparedFile | null> {
    if (!this.options.claims) throw new Error('prepareClaimable needs a pool made with a claim table');
    return this.enqueue(job, claim);
  }

  private enqueue(job: PrepareJob, claim: number | undefined): Promise<PreparedFile | null> {
    const promise = new Promise<PreparedFile | null>((resolve, reject) => {
      if (!this.alive) return reject(new ParseJobError('the parse workers are gone', false));
      this.queue.push({ id: this.nextId++, job, claim, resolve, reject });
      this.dispatch();
    });
    promise.catch(() => undefined);
    return promise;
  }

  /** Whether the pool still has a worker to take jobs. */
  get alive(): boolean {
    return !this.closed && this.slots.size > 0;
  }

  /** Stop every worker now; outstanding jobs reject. */
  async terminate(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const slots = [...this.slots];
    this.slots.clear();
    this.failAll(slots.flatMap((s) => [...s.inFlight.values()]).concat(this.queue.splice(0)), 'the parse pool was stopped', false);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private spawn(): void {
    const data: ParseWorkerData = { languages: this.options.languages, ...(this.options.claims ? { claims: this.options.claims } : {}) };
    const worker = startWorker(this.options.script, data);
    const slot: Slot = { worker, inFlight: new Map() };
    this.slots.add(slot);
    worker.on('message', (message: ParseResponse) => {
      const pending = slot.inFlight.get(message.id);
      if (!pending) return;
      slot.inFlight.delete(message.id);
      if (message.error !== undefined) pending.reject(new ParseJobError(message.error, true));
      else pending.resolve(message.skipped ? null : message.result);
      this.dispatch();
    });
    worker.on('error', (error) => this.lose(slot, error.message));
    worker.on('exit', (code) => this.lose(slot, `exited with code ${code}`));
  }

  /** A worker died: its jobs fail (the caller falls back), and a replacement starts if allowed. */
  private lose(slot: Slot, why: string): void {
    if (!this.slots.delete(slot)) return;
    // A worker takes its jobs in order: the first was being prepared when it died and fails; the
    // ones queued behind it never started and go back to the queue.
    const [current, ...waiting] = slot.inFlight.values();
    slot.inFlight.clear();
    if (current) this.failAll([current], `parse worker failed: ${why}`, true);
    this.queue.unshift(...waiting);
    if (this.closed) return;
    if (this.restarts < MAX_RESTARTS) {
      this.restarts++;
      this.spawn();
      this.dispatch();
    } else if (this.slots.size === 0) {
      this.failAll(this.queue.splice(0), `parse workers failed: ${why}`, false);
    }
  }

  private failAll(pending: Pending[], why: string, culprit: boolean): void {
    for (const p of pending) p.reject(new ParseJobError(why, culprit));
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      while (slot.inFlight.size < (this.options.inFlight ?? PER_WORKER_IN_FLIGHT) && this.queue.length > 0) {
        const next = this.queue.shift()!;
        slot.inFlight.set(next.id, next);
        slot.worker.postMessage({ id: next.id, job: next.job, ...(next.claim !== undefined ? { claim: next.claim } : {}) } satisfies ParseRequest);
      }
    }
  }
}
