import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { detectLanguage } from '../../core/features/chat/language';
import { detectLanguageAhead } from './languageAhead';

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

  it('builds no normal tables for a question the light ones settle as English, even while the main thread is busy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-tinyld-busy-'));
    // tinyld's code cache is written when a thread that compiled the normal tables exits.
    const cacheFile = join(dir, 'tinyld.v8cache');
    try {
      const english = 'Where are the settings loaded?';
      const pending = detectLanguageAhead(english, { cacheFile });
      // The main thread busy (the engine loading) long after the thread read the light guess.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4000);
      expect(await pending.result).toEqual(detectLanguage(english));
      expect(existsSync(cacheFile)).toBe(false);
      // A question they do not settle still gets the normal tables.
      const polish = QUESTIONS[0]!;
      expect(await detectLanguageAhead(polish, { cacheFile }).result).toEqual(detectLanguage(polish));
      await vi.waitFor(() => expect(existsSync(cacheFile)).toBe(true), { timeout: 60_000, interval: 50 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('runs the work given to useWait while the thread is detecting, and none once the result is there or when no thread started', async () => {
    const question = 'Where are the settings loaded?';
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
    const stopped = detectLanguageAhead('Where are the settings loaded?');
    stopped.cancel();
    expect(await stopped.result).toBeUndefined();
  });
});
