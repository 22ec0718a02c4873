import { randomUUID } from 'node:crypto';
import { AppError, isCancellation, serializeError } from '../../shared/contract';
import type { RunInfo, RunProgress } from '../../shared/contract';
import type { EventBus } from './events';

/** What a job body receives: its abort signal and a progress reporter. */
export interface RunContext {
  runId: string;
  signal: AbortSignal;
  progress(update: Omit<RunProgress, 'runId' | 'kind'>): void;
}

/** How many finished runs the job list keeps. */
const FINISHED_KEPT = 50;
/**
 * Least time between two `run/progress` events of a run within a phase. An index run reports every
 * file (hundreds a second); forwarding each one cost the app's renderer more CPU than the index
 * itself on 2 cores (figures: README, "Indexing").
 */
export const PROGRESS_INTERVAL_MS = 200;

/**
 * Owns every long-running job: gives it a run id and an AbortSignal, forwards its progress as
 * `run/progress` events and reports the end as `run/finished`. `run/cancel` reaches the job's
 * loops through the signal. Progress is forwarded at once when the phase changes or a count
 * completes, else at most every PROGRESS_INTERVAL_MS (the latest update; `list` always has it).
 */
export class RunRegistry {
  private readonly runs = new Map<string, { info: RunInfo; controller: AbortController; done: Promise<unknown> }>();

  constructor(private readonly events: EventBus) {}

  /** Start `body` in the background and return its run id at once; `repoId` names the repository it works on. */
  start<T>(kind: string, title: string, body: (ctx: RunContext) => Promise<T>, options: { repoId?: string } = {}): { runId: string; done: Promise<T> } {
    const runId = `${kind}-${randomUUID().slice(0, 8)}`;
    const controller = new AbortController();
    const info: RunInfo = { runId, kind, title, status: 'running', startedAt: new Date().toISOString() };
    if (options.repoId) info.repoId = options.repoId;
    const report = this.progressForwarder(info);
    const ctx: RunContext = { runId, signal: controller.signal, progress: (update) => report({ runId, kind, ...update }) };
    this.events.emit('run/started', { ...info });
    const done = Promise.resolve()
      .then(() => body(ctx))
      .then(
        (result) => {
          this.finish(info, controller.signal.aborted ? 'cancelled' : 'done', undefined, result);
          return result;
        },
        (error: unknown) => {
          const cancelled = controller.signal.aborted || isCancellation(error);
          this.finish(info, cancelled ? 'cancelled' : 'failed', cancelled ? undefined : error);
          throw cancelled ? new AppError('CANCELLED', 'Cancelled.') : error;
        },
      );
    // The caller may not await `done`; failures are already reported through run/finished.
    done.catch(() => undefined);
    this.runs.set(runId, { info, controller, done });
    return { runId, done };
  }

  /**
   * Records every update in `info.progress` and emits them as events, rate-limited (see the class
   * comment). A pending update of a run that has finished is dropped (`info.status`).
   */
  private progressForwarder(info: RunInfo): (progress: RunProgress) => void {
    let lastEmit = -Infinity;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const emitLatest = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      lastEmit = performance.now();
      if (info.progress && info.status === 'running') this.events.emit('run/progress', info.progress);
    };
    return (progress) => {
      const phaseChanged = info.progress?.phase !== progress.phase;
      info.progress = progress;
      const complete = progress.total !== undefined && progress.done === progress.total;
      const wait = PROGRESS_INTERVAL_MS - (performance.now() - lastEmit);
      if (phaseChanged || complete || wait <= 0) emitLatest();
      else if (!timer) {
        timer = setTimeout(emitLatest, wait);
        timer.unref?.();
      }
    };
  }

  /** Abort a running job. Returns false when it is unknown or already finished. */
  cancel(runId: string): boolean {
    const run = this.runs.get(runId);
    if (!run || run.info.status !== 'running') return false;
    run.controller.abort(new AppError('CANCELLED', 'Cancelled by the user.'));
    return true;
  }

  /** Running and recent runs, newest first. */
  list(includeFinished = true): RunInfo[] {
    const all = [...this.runs.values()].map((r) => ({ ...r.info }));
    const visible = includeFinished ? all : all.filter((r) => r.status === 'running');
    return visible.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }

  /** Wait for a run to end (tests, CLI); resolves with its result or rejects with its error. */
  wait(runId: string): Promise<unknown> {
    const run = this.runs.get(runId);
    if (!run) return Promise.reject(new AppError('NOT_FOUND', `No run with id ${runId}.`));
    return run.done;
  }

  /** Cancel everything (engine shutdown). */
  cancelAll(): void {
    for (const runId of this.runs.keys()) this.cancel(runId);
  }

  private finish(info: RunInfo, status: 'done' | 'failed' | 'cancelled', error?: unknown, result?: unknown): void {
    info.status = status;
    info.finishedAt = new Date().toISOString();
    const wire = error === undefined ? undefined : serializeError(error);
    if (wire) info.error = { code: wire.code, message: wire.message };
    this.events.emit('run/finished', { runId: info.runId, kind: info.kind, status, error: info.error, result });
    this.prune();
  }

  private prune(): void {
    const finished = [...this.runs.values()].filter((r) => r.info.status !== 'running');
    const excess = finished.length - FINISHED_KEPT;
    if (excess <= 0) return;
    finished
      .sort((a, b) => a.info.startedAt.localeCompare(b.info.startedAt))
      .slice(0, excess)
      .forEach((r) => this.runs.delete(r.info.runId));
  }
}

/** Throw CANCELLED when the signal has fired; call it inside long loops. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AppError('CANCELLED', 'Cancelled.');
}
