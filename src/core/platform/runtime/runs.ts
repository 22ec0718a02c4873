import { AsyncLocalStorage } from 'node:async_hooks';
import { nodeCrypto } from '../nodeModules';
import { AppError, isCancellation, mergeProgressSteps, serializeError } from '../../../shared/contract';
import type { EventKey, RunAttachment, RunFinished, RunInfo, RunKind, RunProgress, RunResult, RunStarted, RunSubject } from '../../../shared/contract';
import type { CallLogger } from '../llm/types';
import { FINISHED_LOG_MS, FINISHED_LOGS_KEPT, RunEventLog } from './eventLog';
import type { EventBus } from './events';

/** What a job reports: a progress without the run id and kind the registry adds. */
export type RunProgressUpdate = Omit<RunProgress, 'runId' | 'kind'>;

/** What a job body receives: its abort signal and a progress reporter. */
export interface RunContext {
  runId: string;
  signal: AbortSignal;
  progress(update: RunProgressUpdate): void;
}

/**
 * Where runs are recorded (the raw DB's `task_runs`, src/core/platform/logs/runLog.ts): a row at the start,
 * its end state at the end. A journal that throws is reported and never fails the run.
 */
export interface RunJournal {
  started(run: RunInfo): void;
  finished(run: RunInfo, result: unknown): void;
  /** The call log for model calls made inside the run: the raw DB its row is in, so calls join their run. */
  callLog(run: RunInfo): CallLogger | undefined;
}

/** The run the current async context belongs to (set around a job body). */
export interface ActiveRun {
  runId: string;
  kind: RunKind;
  /** Where model calls of this run are logged, when the registry has a journal. */
  log?: CallLogger;
}

const activeRuns = new AsyncLocalStorage<ActiveRun>();

/** The run whose job body is executing here, if any: model calls made inside a run record its id. */
export function activeRun(): ActiveRun | undefined {
  return activeRuns.getStore();
}

/** How many finished runs the job list keeps. */
const FINISHED_KEPT = 50;
/**
 * Least time between two `run/progress` events of a run within a phase. An index run reports every
 * file (hundreds a second); forwarding each one cost the app's renderer more CPU than the index
 * itself on 2 cores (figures: docs/indexing.md).
 */
export const PROGRESS_INTERVAL_MS = 200;

interface Run {
  info: RunInfo;
  controller: AbortController;
  done: Promise<unknown>;
  /** The run's events (every event whose payload names its runId), numbered and bounded. */
  log: RunEventLog;
  result?: unknown;
}

/**
 * Owns every long-running job: gives it a run id and an AbortSignal, forwards its progress as
 * `run/progress` events and reports the end as `run/finished`. `run/cancel` reaches the job's
 * loops through the signal. Progress is forwarded at once when the phase changes or a count
 * completes, else at most every PROGRESS_INTERVAL_MS (the latest update; `list` always has it).
 *
 * Every event that carries the `runId` of a run here (run/*, chat/*, retrieval/*,
 * models/pullProgress) is numbered (`seq`, 1, 2, 3… per run) and kept in the run's log (bounded:
 * eventLog.ts), so a client can attach to the run (`attach`, request `run/attach`) and replay it.
 */
export class RunRegistry {
  private readonly runs = new Map<string, Run>();
  private journal: RunJournal | undefined;

  constructor(private readonly events: EventBus) {
    events.stampWith((event, payload) => this.stamp(event, payload));
  }

  /** Record every run from now on (createCore: the raw DB's `task_runs`). */
  recordTo(journal: RunJournal): void {
    this.journal = journal;
  }

  /**
   * Start `body` in the background and return its record at once (`run`, a copy as `run/started`
   * has it). `subject` is what the run works on; its type, and the type `body` returns, follow
   * from `kind` (see `RunKinds`).
   */
  start<K extends RunKind>(kind: K, title: string, body: (ctx: RunContext) => Promise<RunResult<K>>, subject: RunSubject<K>): { runId: string; run: RunInfo<K>; done: Promise<RunResult<K>> } {
    const runId = `${kind}-${nodeCrypto().randomUUID().slice(0, 8)}`;
    const controller = new AbortController();
    // The generic K cannot be related to the union by the compiler; `start`'s signature is the check.
    const info = { runId, kind, subject, title, status: 'running', startedAt: new Date().toISOString() } as unknown as RunInfo;
    const report = this.progressForwarder(info);
    const ctx: RunContext = { runId, signal: controller.signal, progress: (update) => report(update) };
    this.record(() => this.journal?.started({ ...info }));
    const log = this.record(() => this.journal?.callLog(info));
    const run: Run = { info, controller, done: Promise.resolve(), log: new RunEventLog() };
    // Known before its first event, so run/started is the first entry of its log.
    this.runs.set(runId, run);
    this.events.emit('run/started', { ...info });
    const done = Promise.resolve()
      .then(() => activeRuns.run({ runId, kind, ...(log ? { log } : {}) }, () => body(ctx)))
      .then(
        (result) => {
          if (!controller.signal.aborted) run.result = result;
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
    run.done = done;
    return { runId, run: { ...info } as RunInfo<K>, done };
  }

  /**
   * What a request that started run `runId` answers: the run's record as it is now, and `runId`
   * (kept for one release for callers that read it; see `RunStarted`).
   */
  started<K extends RunKind>(runId: string, kind: K): RunStarted<K> {
    const run = this.runs.get(runId);
    if (!run || run.info.kind !== kind) throw new AppError('INTERNAL', `The ${kind} run ${runId} that was just started is unknown.`);
    return { run: { ...run.info } as RunInfo<K>, runId };
  }

  /**
   * A run's record and its logged events after `afterSeq` (all it kept by default), for a client
   * that attaches late (a second window, a reconnecting tab). Live events with a greater seq
   * follow on the event bus; a finished run replays what its log still has, and its result.
   */
  attach(runId: string, afterSeq = 0): RunAttachment {
    const run = this.runs.get(runId);
    if (!run) throw new AppError('NOT_FOUND', `No run with id ${runId}: it is unknown or finished too long ago (the job list keeps the last ${FINISHED_KEPT}).`);
    return {
      run: { ...run.info },
      events: run.log.since(afterSeq),
      lastSeq: run.log.lastSeq,
      firstSeq: run.log.firstSeq,
      ...(run.result !== undefined ? { result: run.result } : {}),
    };
  }

  /** The log of a run (tests: its bounds). */
  eventLog(runId: string): RunEventLog | undefined {
    return this.runs.get(runId)?.log;
  }

  /** An event that names a run here gets the run's next seq and goes into its log. */
  private stamp(event: EventKey, payload: unknown): unknown {
    const runId = typeof payload === 'object' && payload !== null ? (payload as { runId?: unknown }).runId : undefined;
    const run = typeof runId === 'string' ? this.runs.get(runId) : undefined;
    if (!run) return payload;
    const stamped = { ...(payload as object), seq: run.log.nextSeq() };
    run.log.append(event, stamped);
    return stamped;
  }

  /** The journal must not turn a run into a failure: a write that throws is said on stderr. */
  private record<T>(write: () => T): T | undefined {
    try {
      return write();
    } catch (error) {
      console.error('[runs] could not record the run in the raw log:', (error as Error).message);
      return undefined;
    }
  }

  /**
   * Records every update in `info.progress` and emits them as events, rate-limited (see the class
   * comment). A pending update of a run that has finished is dropped (`info.status`).
   */
  private progressForwarder(info: RunInfo): (update: RunProgressUpdate) => void {
    let lastEmit = -Infinity;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const emitLatest = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      lastEmit = performance.now();
      if (info.progress && info.status === 'running') this.events.emit('run/progress', info.progress);
    };
    return (update) => {
      const phaseChanged = info.progress?.phase !== update.phase;
      // A tree update may name only the nodes that changed; the run keeps (and sends) the whole tree.
      const steps = mergeProgressSteps(info.progress?.steps, update.steps);
      const progress = { ...update, runId: info.runId, kind: info.kind, ...(steps ? { steps } : {}) } as RunProgress;
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

  /**
   * Wait for a run to end (tests, CLI); resolves with its result or rejects with its error. Given
   * the kind it expects, the result is typed (and a run of another kind is an error).
   */
  wait<K extends RunKind>(runId: string, kind: K): Promise<RunResult<K>>;
  wait(runId: string): Promise<unknown>;
  wait(runId: string, kind?: RunKind): Promise<unknown> {
    const run = this.runs.get(runId);
    if (!run) return Promise.reject(new AppError('NOT_FOUND', `No run with id ${runId}.`));
    if (kind && run.info.kind !== kind) return Promise.reject(new AppError('VALIDATION', `Run ${runId} is a ${run.info.kind} run, not ${kind}.`));
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
    this.record(() => this.journal?.finished({ ...info }, status === 'done' ? result : undefined));
    const finished = { runId: info.runId, kind: info.kind, status, error: info.error, result: status === 'done' ? result : undefined } as RunFinished;
    this.events.emit('run/finished', finished);
    const run = this.runs.get(info.runId);
    setTimeout(() => run?.log.clear(), FINISHED_LOG_MS).unref?.();
    this.prune();
  }

  /** Finished runs past FINISHED_KEPT are forgotten; past FINISHED_LOGS_KEPT they keep their record, not their log. */
  private prune(): void {
    const finished = [...this.runs.values()].filter((r) => r.info.status !== 'running');
    finished
      .sort((a, b) => (b.info.finishedAt ?? '').localeCompare(a.info.finishedAt ?? ''))
      .slice(FINISHED_LOGS_KEPT)
      .forEach((r) => r.log.clear());
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
