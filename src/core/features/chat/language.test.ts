import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../platform/paths';
import { plainlyEnglish, settledAsEnglish } from '../../../shared/language';
import { detectLanguage, languageName, proseOf, translateSystem } from './language';

describe('language detection (offline, tinyld)', () => {
  it.each([
    ['Gdzie są wczytywane ustawienia aplikacji?', 'pl'],
    ['Wo werden die Einstellungen geladen?', 'de'],
    ['Où sont chargés les paramètres de l’application ?', 'fr'],
    ['Where are the settings loaded?', 'en'],
    ['How is the cache invalidated?', 'en'],
  ])('%j is %s', (text, language) => {
    expect(detectLanguage(text).language).toBe(language);
  });

  it('does not read identifiers, paths and acronyms as words: a short English question is not translated', () => {
    expect(proseOf('Explain parseQuery in src/search/query.ts and `load_config()`')).toBe('Explain in and');
    // tinyld alone says Portuguese for the first and Czech for the second.
    expect(detectLanguage('Explain parseQuery').language).toBeNull();
    expect(detectLanguage('What is JSON?').language).toBeNull();
  });

  it('an English question the normal tables misread (as Klingon) is settled as English by the light ones, so it is not translated', () => {
    // Two issue titles of the development set; tinyld's normal tables alone say 'tlh' for both.
    expect(detectLanguage('selectinload does not update results when subquery filter changes.').language).toBe('en');
    expect(detectLanguage('Subquery load loses `and_` criteria when combined with `of_type`').language).toBe('en');
  });

  it('plainly English prose (two English-only function words, none of another language) needs no tables', () => {
    for (const english of ['Where is json decoder handled?', 'How is a JSON document decoded?', 'Why does the request hang when the stream closes early?', 'Which function builds the response headers?']) {
      expect(plainlyEnglish(proseOf(english)), english).toBe(true);
      expect(detectLanguage(english)).toEqual({ language: 'en', confidence: 1 });
    }
    // Too few English function words, or one another language has too ("do" is Portuguese): the tables decide.
    for (const other of ['Explain caching for sessions', 'Where do we handle redirects?', 'How do I add a filter?']) expect(plainlyEnglish(proseOf(other)), other).toBe(false);
    // Questions in other languages written without accents, and mixtures, are never settled by it.
    for (const other of [
      'Wie funktioniert das Routing in dieser Anwendung?',
      'Was ist the Unterschied zwischen diesen Loadern?',
      'Comment le routeur fait-il correspondre un chemin ?',
      'Donde se maneja el decodificador de JSON?',
      'Dove viene gestito il decoder JSON?',
      'Onde o decodificador de JSON e tratado?',
      'Waarom blijft het verzoek hangen als de stream sluit?',
      'Is er een test voor het verlopen van de sessie?',
      'Hur fungerar routern i den har appen?',
      'Gdzie jest obslugiwany dekoder JSON?',
      'Where are the settings loaded? Où sont chargés les paramètres ?',
    ]) expect(plainlyEnglish(proseOf(other)), other).toBe(false);
  });

  it('a question the light tables settle as English never builds the normal tables (~120 ms); another one does; plainly English prose loads neither', () => {
    const loadedAfter = (question: string) => {
      const program = [
        "require('tsx/cjs/api').register();",
        `const { detectLanguage } = require(${JSON.stringify(join(__dirname, 'language.ts'))});`,
        `detectLanguage(${JSON.stringify(question)});`,
        "process.stdout.write(Object.keys(require.cache).filter((f) => /tinyld\\.(light|normal)\\.node\\.js$/.test(f)).map((f) => f.split('.').at(-3)).join(','));",
      ].join('\n');
      const result = spawnSync(process.execPath, ['-e', program], { encoding: 'utf8', timeout: 120_000, cwd: packageRoot() });
      expect(result.status, result.stderr).toBe(0);
      return result.stdout;
    };
    expect(loadedAfter('Where are the settings loaded?')).toBe('');
    expect(loadedAfter('Where do we handle redirects?')).toBe('light');
    expect(loadedAfter('Wo werden die Einstellungen geladen?')).toBe('light,normal');
  }, 120_000);

  it('the light tables settle only plain-ASCII prose they read as English; anything else goes to the normal tables', () => {
    expect(settledAsEnglish('Where are the settings loaded', { lang: 'en', accuracy: 1 })).toBe(true);
    expect(settledAsEnglish('Where are the settings loaded', { lang: 'en', accuracy: 0.3 })).toBe(false);
    expect(settledAsEnglish('Où sont chargés les paramètres', { lang: 'en', accuracy: 1 })).toBe(false);
    expect(settledAsEnglish('Wo werden die Einstellungen geladen', { lang: 'de', accuracy: 1 })).toBe(false);
    expect(settledAsEnglish('Where are the settings loaded', undefined)).toBe(false);
  });

  it('translation prompts keep code and citations, and name the language', () => {
    expect(languageName('pl')).toBe('Polish');
    expect(translateSystem('pl')).toContain('into Polish');
    expect(translateSystem('en')).toContain('[src/app.py:12-30] exactly as written');
  });
});
