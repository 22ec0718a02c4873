import { describe, expect, it } from 'vitest';
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

  it('translation prompts keep code and citations, and name the language', () => {
    expect(languageName('pl')).toBe('Polish');
    expect(translateSystem('pl')).toContain('into Polish');
    expect(translateSystem('en')).toContain('[src/app.py:12-30] exactly as written');
  });
});
