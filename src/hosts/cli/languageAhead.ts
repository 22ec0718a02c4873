import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type * as WorkerThreads from 'node:worker_threads';
import type * as Tinyld from 'tinyld';
import { packageRoot } from '../../core/platform/paths';
import { detectionOf, hasEnoughProse, plainlyEnglish, PLAINLY_ENGLISH, proseOf, settledAsEnglish, settlingGuess, type BestGuess, type LanguageDetection } from '../../shared/language';

/**
 * The question's language, detected on another thread while the engine loads (`cra chat`): tinyld's
 * tables take ~100 ms of CPU to build, the longest single step before a chat's sources, and the
 * engine's load and the repository's opening take about as long. Same rules as the engine's own
 * detection (src/shared/language.ts), so the result sent with chat/ask (`detected`) is the one the
 * engine would have found. A question tinyld's light tables settle as English (most) is answered at
 * once on the calling thread, without a thread. `result` is undefined when the thread failed: the
 * engine then detects.
 */
export interface LanguageAhead {
  result: Promise<LanguageDetection | undefined>;
  /**
   * `result`, after running `work` when the thread is still detecting (not when the result is
   * there): work the command does after the detection anyway, moved into the wait. A failure of
   * `work` is ignored (the command meets it again where it is not).
   */
  useWait(work: () => Promise<unknown>): Promise<LanguageDetection | undefined>;
  /** Stop the thread (a command that ends before asking). */
  cancel(): void;
}

/** A {@link LanguageAhead} of `result`, whose `useWait` runs its work until `result` is settled. */
function ahead(result: Promise<LanguageDetection | undefined>, cancel: () => void, settledAtOnce = false): LanguageAhead {
  let settled = settledAtOnce;
  void result.then(() => (settled = true));
  return {
    result,
    useWait: async (work) => {
      if (!settled) await work().catch(() => undefined);
      return result;
    },
    cancel,
  };
}

/**
 * The thread: tinyld's best guess for one text with its normal tables (CommonJS evaluated as the
 * worker's code); the light tables, when they can settle the question, were asked on the calling
 * thread first ({@link detectLanguageAhead}). With a cache file, tinyld (590 kB of code, most of it
 * its tables' literal) is compiled with V8's code cache (src/core/platform/runtime/codeCache.js;
 * written when the thread exits, when missing or stale).
 */
const THREAD = `const { parentPort, workerData } = require('node:worker_threads');
const tinyld = workerData.cacheFile ? require(workerData.loader).requireWithCodeCache(workerData.tinyld, workerData.cacheFile) : require(workerData.tinyld);
const best = tinyld.detectAll(workerData.prose)[0];
parentPort.postMessage(best ? { lang: best.lang, accuracy: best.accuracy } : null);`;

/**
 * Where tinyld's code cache is kept by default: beside the CLI bundle (out/cli, where the bundles'
 * own caches are), when there is one; none otherwise.
 */
function defaultCacheFile(): string | undefined {
  const dir = join(packageRoot(), 'out', 'cli');
  return existsSync(dir) ? join(dir, 'tinyld.v8cache') : undefined;
}

/**
 * tinyld's light guess for `prose`, on this thread (70 kB of tables, ~18 ms: less than a worker's
 * start, 22–28 ms, before it has read anything); undefined when they have no guess, null when tinyld
 * fails to load (the thread then decides).
 */
function lightGuess(prose: string): BestGuess | null {
  try {
    // Loaded here, not at start: only a question with prose to detect pays for it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const best = (require('tinyld/light') as typeof Tinyld).detectAll(prose)[0];
    return best ? { lang: best.lang, accuracy: best.accuracy } : undefined;
  } catch {
    return null;
  }
}

/**
 * Start detecting `question`'s language (no thread when it has too few words of prose to detect,
 * nor when its function words make it plainly English: shared/language.ts `plainlyEnglish`).
 * Other plain-ASCII prose is first given to the light tables on this thread: when they settle it as
 * English (shared/language.ts `settledAsEnglish`) the result is there at once and no thread starts;
 * otherwise, and for any other prose (which the light tables cannot settle), a thread builds the
 * normal tables. `cacheFile`: tinyld's code cache (default beside the CLI bundle; null: none).
 */
export function detectLanguageAhead(question: string, options: { cacheFile?: string | null } = {}): LanguageAhead {
  const prose = proseOf(question);
  if (!hasEnoughProse(prose)) return ahead(Promise.resolve({ language: null, confidence: 0 }), () => undefined, true);
  if (plainlyEnglish(prose)) return ahead(Promise.resolve(PLAINLY_ENGLISH), () => undefined, true);
  if (settlingGuess(prose) !== null) {
    const light = lightGuess(prose);
    if (light !== null && settledAsEnglish(prose, light)) return ahead(Promise.resolve(detectionOf(light)), () => undefined, true);
  }
  let worker: WorkerThreads.Worker | undefined;
  const result = new Promise<LanguageDetection | undefined>((resolve) => {
    try {
      // Loaded here, not at start: `cra --version` and the other commands never pay for it.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { Worker } = require('node:worker_threads') as typeof WorkerThreads;
      const cacheFile = options.cacheFile === undefined ? defaultCacheFile() : (options.cacheFile ?? undefined);
      const loader = join(packageRoot(), 'src', 'core', 'platform', 'runtime', 'codeCache.js');
      worker = new Worker(THREAD, { eval: true, workerData: { tinyld: require.resolve('tinyld'), prose, cacheFile, loader } });
    } catch {
      return resolve(undefined);
    }
    worker.once('message', (best: BestGuess | null) => resolve(detectionOf(best ?? undefined)));
    worker.once('error', () => resolve(undefined));
    worker.once('exit', () => resolve(undefined));
  });
  return ahead(result, () => void worker?.terminate());
}
