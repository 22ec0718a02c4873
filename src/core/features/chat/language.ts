import type * as Tinyld from 'tinyld';
import { detectionOf, hasEnoughProse, plainlyEnglish, PLAINLY_ENGLISH, proseOf, settledAsEnglish, type LanguageDetection } from '../../../shared/language';

export { MIN_LANGUAGE_CONFIDENCE, MIN_PROSE_WORDS, proseOf } from '../../../shared/language';

/*
 * The question's language, found offline (tinyld: n-gram statistics, no model call), by the rules
 * of src/shared/language.ts.
 */

/** The detected language (ISO 639-1) and its confidence; null when the text is too short or unsure. */
export function detectLanguage(text: string): LanguageDetection {
  const prose = proseOf(text);
  if (!hasEnoughProse(prose)) return { language: null, confidence: 0 };
  if (plainlyEnglish(prose)) return PLAINLY_ENGLISH;
  // tinyld is required on the first detection that needs it (not for plainly English prose), so the
  // commands and app starts that never detect a language do not pay for it: its light tables first
  // (70 kB), the normal ones (800 kB, ~125 ms to load) only when the light ones do not settle the
  // question as English (shared/language.ts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const light = (require('tinyld/light') as typeof Tinyld).detectAll(prose)[0];
  if (settledAsEnglish(prose, light)) return detectionOf(light);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { detectAll } = require('tinyld') as typeof Tinyld;
  return detectionOf(detectAll(prose)[0]);
}

/** The system prompt of the translation calls: keep code, paths, identifiers and citations as written. */
export function translateSystem(to: string): string {
  return [
    `Translate the user's text into ${languageName(to)}.`,
    'Keep code, file paths, identifiers, symbol names and citations such as [src/app.py:12-30] exactly as written.',
    'Reply with the translation only.',
  ].join('\n');
}

/** An English name of a language code for prompts (the code itself when unknown). */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}
