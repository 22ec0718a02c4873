import { describe, expect, it } from 'vitest';
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
];

describe('the language detected on another thread while the engine loads (cra chat)', () => {
  it.each(QUESTIONS)('%j: the same detection as the engine would make', async (question) => {
    expect(await detectLanguageAhead(question).result).toEqual(detectLanguage(question));
  });

  it('starts no thread for a question too short to tell, and leaves detection to the engine when the thread is stopped', async () => {
    expect(await detectLanguageAhead('Explain parseQuery').result).toEqual({ language: null, confidence: 0 });
    const stopped = detectLanguageAhead('Where are the settings loaded?');
    stopped.cancel();
    expect(await stopped.result).toBeUndefined();
  });
});
