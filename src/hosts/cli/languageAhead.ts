import type * as WorkerThreads from 'node:worker_threads';
import { detectionOf, hasEnoughProse, proseOf, type LanguageDetection } from '../../shared/language';

/**
 * The question's language, detected on another thread while the engine loads (`cra chat`): tinyld's
 * tables take ~100 ms of CPU to build, the longest single step before a chat's sources, and the
 * engine's load and the repository's opening take about as long. Same rules as the engine's own
 * detection (src/shared/language.ts), so the result sent with chat/ask (`detected`) is the one the
 * engine would have found. `result` is undefined when the thread failed: the engine then detects.
 */
export interface LanguageAhead {
  result: Promise<LanguageDetection | undefined>;
  /** Stop the thread (a command that ends before asking). */
  cancel(): void;
}

/** The thread: tinyld's best guess for one text (CommonJS evaluated as the worker's code). */
const THREAD = `const { parentPort, workerData } = require('node:worker_threads');
const best = require(workerData.tinyld).detectAll(workerData.prose)[0];
parentPort.postMessage(best ? { lang: best.lang, accuracy: best.accuracy } : null);`;

/** Start detecting `question`'s language (no thread when it has too few words of prose to detect). */
export function detectLanguageAhead(question: string): LanguageAhead {
  const prose = proseOf(question);
  if (!hasEnoughProse(prose)) return { result: Promise.resolve({ language: null, confidence: 0 }), cancel: () => undefined };
  let worker: WorkerThreads.Worker | undefined;
  const result = new Promise<LanguageDetection | undefined>((resolve) => {
    try {
      // Loaded here, not at start: `cra --version` and the other commands never pay for it.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { Worker } = require('node:worker_threads') as typeof WorkerThreads;
      worker = new Worker(THREAD, { eval: true, workerData: { tinyld: require.resolve('tinyld'), prose } });
    } catch {
      return resolve(undefined);
    }
    worker.once('message', (best: { lang: string; accuracy: number } | null) => resolve(detectionOf(best ?? undefined)));
    worker.once('error', () => resolve(undefined));
    worker.once('exit', () => resolve(undefined));
  });
  return { result, cancel: () => void worker?.terminate() };
}
