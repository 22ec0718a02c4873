import { AppError } from '../../../shared/contract';
import { classifyError } from './errors';
import { ollamaClient } from './ollamaProvider';
import { PullTracker, type PullSnapshot } from './pullProgress';

/** How a pull is watched. */
export interface PullOptions {
  signal: AbortSignal;
  onProgress(snapshot: PullSnapshot & { retry?: number }): void;
  /** Reconnect when no bytes arrive for this long (default 30 s). */
  stallMs?: number;
  /** Reconnections after an interruption or a stall before giving up (default 3). */
  maxRetries?: number;
  /** Minimum milliseconds between progress reports (default 100). */
  throttleMs?: number;
  /** The clock stall detection reads (default Date.now; tests drive their own). */
  now?: () => number;
}

/**
 * Pull a model through Ollama, summing layer progress. An interrupted connection or a stall
 * (no bytes for `stallMs`) reconnects and continues: Ollama keeps partial layers, so the re-pull
 * resumes. Unknown models and a full disk fail at once with a clear message.
 */
export async function pullModel(baseUrl: string, name: string, options: PullOptions): Promise<{ attempts: number }> {
  const now = options.now ?? Date.now;
  const tracker = new PullTracker(now());
  const maxRetries = options.maxRetries ?? 3;
  for (let attempt = 1; ; attempt++) {
    const outcome = await pullOnce(baseUrl, name, tracker, options, attempt > 1 ? attempt - 1 : undefined);
    if (outcome === 'done') return { attempts: attempt };
    if (options.signal.aborted) throw new AppError('CANCELLED', 'Cancelled.');
    if (attempt > maxRetries) {
      throw new AppError('MODEL_ERROR', `The download of ${name} kept ${outcome === 'stalled' ? 'stalling' : 'breaking off'} (${attempt} tries). Press Pull again to resume; finished layers are kept.`, { retryable: true });
    }
    tracker.resetSpeed(now());
  }
}

async function pullOnce(baseUrl: string, name: string, tracker: PullTracker, options: PullOptions, retry: number | undefined): Promise<'done' | 'stalled' | 'interrupted'> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal.addEventListener('abort', onAbort, { once: true });
  let stalled = false;
  const stallMs = options.stallMs ?? 30_000;
  const now = options.now ?? Date.now;
  tracker.resetSpeed(now());
  const watchdog = setInterval(() => {
    if (tracker.idleMs(now()) > stallMs) {
      stalled = true;
      controller.abort();
    }
  }, Math.min(1000, Math.max(20, stallMs / 4)));
  let lastReport = 0;
  const report = (force: boolean) => {
    const now = Date.now();
    if (!force && now - lastReport < (options.throttleMs ?? 100)) return;
    lastReport = now;
    options.onProgress({ ...tracker.snapshot(), ...(retry ? { retry } : {}) });
  };
  try {
    const stream = await ollamaClient(baseUrl, controller.signal).pull({ model: name, stream: true });
    for await (const line of stream) {
      tracker.update(line, now());
      report(line.status === 'success');
      if (line.status === 'success') return 'done';
    }
    return 'interrupted';
  } catch (error) {
    if (options.signal.aborted) throw new AppError('CANCELLED', 'Cancelled.');
    if (stalled) return 'stalled';
    const message = error instanceof Error ? error.message : String(error);
    if (/file does not exist|manifest.*not found|model.*not found/i.test(message)) {
      throw new AppError('MODEL_NOT_FOUND', `There is no model named '${name}' in the Ollama library. Check the name at https://ollama.com/library.`);
    }
    if (/no space left on device/i.test(message)) throw new AppError('DISK_FULL', `The disk is full: the download of ${name} stopped. Free some space (or delete a model) and press Pull again to resume.`);
    const classified = classifyError(error, { baseUrl, model: name });
    if (classified.error.code === 'OLLAMA_UNREACHABLE') throw classified.error;
    if (classified.transient) return 'interrupted';
    throw classified.error;
  } finally {
    clearInterval(watchdog);
    options.signal.removeEventListener('abort', onAbort);
  }
}
