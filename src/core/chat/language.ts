import type * as Tinyld from 'tinyld';

/*
 * The question's language, found offline (tinyld: n-gram statistics, no model call). Identifiers,
 * paths and code in backticks say nothing about the language of the sentence around them and
 * mislead a detector on short questions ("Explain parseQuery" reads as Portuguese), so they are
 * removed first, and so are acronyms (JSON, HTTP); a short or unsure result counts as the model language (no translation).
 */

/** Below this confidence the question is taken to be in the model's language. */
export const MIN_LANGUAGE_CONFIDENCE = 0.5;

/** Fewer words of prose than this say too little about a language ("What is JSON?" reads as Czech). */
export const MIN_PROSE_WORDS = 3;

/** The question's words without code: backticked spans, paths, and identifiers with _ . / or inner capitals. */
export function proseOf(text: string): string {
  return text
    .replace(/`[^`]*`/g, ' ')
    .replace(/\S*[/\\]\S*/g, ' ')
    .replace(/\S*(?:_|\.\w|::|\(\))\S*/g, ' ')
    .replace(/\b\w*[a-z][A-Z]\w*\b/g, ' ')
    .replace(/\b[A-Z0-9]{2,}s?\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The detected language (ISO 639-1) and its confidence; null when the text is too short or unsure. */
export function detectLanguage(text: string): { language: string | null; confidence: number } {
  const prose = proseOf(text);
  if (prose.split(' ').filter((w) => /\p{L}{2,}/u.test(w)).length < MIN_PROSE_WORDS) return { language: null, confidence: 0 };
  // tinyld (800 kB of n-gram tables, ~125 ms to load) is required on the first detection, so the
  // commands and app starts that never detect a language do not pay for it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { detectAll } = require('tinyld') as typeof Tinyld;
  const best = detectAll(prose)[0];
  if (!best || best.accuracy < MIN_LANGUAGE_CONFIDENCE) return { language: null, confidence: best?.accuracy ?? 0 };
  return { language: best.lang, confidence: Math.round(best.accuracy * 1000) / 1000 };
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
