import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as WorkerThreads from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { detectLanguage } from '../../core/features/chat/language';
import { detectLanguageAhead } from './languageAhead';

/** node:worker_threads as the code under test requires it (one module object: a spy on Worker sees its threads). */
const workerThreads = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;

/** Questions in several languages, with code, too short to tell, and ones tinyld alone misreads. */
const QUESTIONS = [
  'Gdzie są wczytywane ustawienia aplikacji?',
  'Wo werden die Einstellungen geladen?',
  'Où sont chargés les paramètres de l’application ?',
  'Where are the settings loaded?',
  'How is the cache invalidated?',
  'Where is json decoder handled?',
  'Explain parseQuery in src/search/query.ts and `load_config()`',
  'What is JSON?',
  '¿Dónde se guarda la configuración del usuario?',
  'Как загружаются настройки приложения?',
  'アプリの設定はどこで読み込まれますか？',
  'selectinload does not update results when subquery filter changes.',
];

describe('the language detected on another thread while the engine loads (cra chat)', () => {
  it.each(QUESTIONS)('%j: the same detection as the engine would make', async (question) => {
    expect(await detectLanguageAhead(question).result).toEqual(detectLanguage(question));
  });

  it("compiles tinyld with V8's code cache: the first thread writes it, the next one starts from it with the same result", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-tinyld-cache-'));
    const cacheFile = join(dir, 'tinyld.v8cache');
    try {
      const question = QUESTIONS[0]!;
      expect(await detectLanguageAhead(question, { cacheFile }).result).toEqual(detectLanguage(question));
      // Written when the first thread exits.
      await vi.waitFor(() => expect(existsSync(cacheFile)).toBe(true), { timeout: 60_000, interval: 50 });
      const written = statSync(cacheFile).mtimeMs;
      expect(await detectLanguageAhead(QUESTIONS[1]!, { cacheFile }).result).toEqual(detectLanguage(QUESTIONS[1]!));
      // Accepted, so not written again.
      expect(statSync(cacheFile).mtimeMs).toBe(written);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('settles a question the light tables call English on the calling thread: no thread starts, the result is there at once', async () => {
    const Thread = workerThreads.Worker;
    // Counted, still started (a class: the spy is called with new).
    const threads = vi.spyOn(workerThreads, 'Worker').mockImplementation(function (...args: ConstructorParameters<typeof Thread>) {
      return new Thread(...args);
    } as unknown as typeof Thread);
    try {
      // The first two are plainly English by their function words (no tables at all), the last two by the light tables.
      for (const english of ['Where are the settings loaded?', 'Where is json decoder handled?', 'Where do we handle redirects?', 'What does the middleware do when the body is empty?']) {
        const pending = detectLanguageAhead(english);
        let ran = 0;
        // No wait to fill: the work is not run.
        expect(await pending.useWait(async () => void ran++)).toEqual(detectLanguage(english));
        expect(ran).toBe(0);
      }
      expect(threads).not.toHaveBeenCalled();
      // Questions they do not settle (not English, or not plain ASCII) still go to a thread with the normal tables.
      for (const other of [QUESTIONS[0]!, 'Wo werden die Einstellungen geladen?']) expect(await detectLanguageAhead(other, { cacheFile: null }).result).toEqual(detectLanguage(other));
      expect(threads).toHaveBeenCalledTimes(2);
    } finally {
      threads.mockRestore();
    }
  }, 120_000);

  it('runs the work given to useWait while the thread is detecting, and none once the result is there or when no thread started', async () => {
    const question = 'Wo werden die Einstellungen geladen?';
    const pending = detectLanguageAhead(question);
    let ran = 0;
    expect(await pending.useWait(async () => void ran++)).toEqual(detectLanguage(question));
    expect(ran).toBe(1);
    expect(await pending.useWait(async () => void ran++)).toEqual(detectLanguage(question));
    expect(ran).toBe(1);
    expect(await detectLanguageAhead('Explain parseQuery').useWait(async () => void ran++)).toEqual({ language: null, confidence: 0 });
    expect(ran).toBe(1);
    // A failing work still gives the detection.
    const failing = detectLanguageAhead(question);
    expect(await failing.useWait(() => Promise.reject(new Error('no pipelines')))).toEqual(detectLanguage(question));
  });

  it('starts no thread for a question too short to tell, and leaves detection to the engine when the thread is stopped', async () => {
    expect(await detectLanguageAhead('Explain parseQuery').result).toEqual({ language: null, confidence: 0 });
    const stopped = detectLanguageAhead('Wo werden die Einstellungen geladen?');
    stopped.cancel();
    expect(await stopped.result).toBeUndefined();
  });
});
