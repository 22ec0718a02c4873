/*
 * The offline language detection's rules, shared by the engine (src/core/features/chat/language.ts, which
 * runs the detector in its own thread) and the CLI (which runs it before the engine loads, the normal
 * tables on another thread, and sends the result with chat/ask). Identifiers, paths and code in backticks say nothing
 * about the language of the sentence around them and mislead a detector on short questions
 * ("Explain parseQuery" reads as Portuguese), so they are removed first, and so are acronyms (JSON,
 * HTTP); a short or unsure result counts as the model language (no translation).
 */

/** Below this confidence the question is taken to be in the model's language. */
export const MIN_LANGUAGE_CONFIDENCE = 0.5;

/** Fewer words of prose than this say too little about a language ("What is JSON?" reads as Czech). */
export const MIN_PROSE_WORDS = 3;

/** A detected language (ISO 639-1) and its confidence; language null when the text is too short or unsure. */
export interface LanguageDetection {
  language: string | null;
  confidence: number;
}

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

/** Whether `prose` (from {@link proseOf}) has enough words to ask the detector at all. */
export function hasEnoughProse(prose: string): boolean {
  return prose.split(' ').filter((w) => /\p{L}{2,}/u.test(w)).length >= MIN_PROSE_WORDS;
}

/** The detector's best guess for a text (tinyld's `detectAll(text)[0]`). */
export type BestGuess = { lang: string; accuracy: number } | undefined;

/**
 * Whether the small tables' guess settles the question as English: the prose is plain ASCII and
 * tinyld's light tables (70 kB, ~25 ms to load against ~120 ms for the normal ones) say English
 * with at least {@link MIN_LANGUAGE_CONFIDENCE}. Otherwise the normal tables decide. Measured
 * (docs/chat.md, "Follow-ups and languages"): on 4,472 non-English texts in 30 languages (gettext catalogues) the
 * rule changes 2 detections (0.04%); on 2,962 English ones (commit subjects, catalogue sources)
 * the normal tables alone misread 104 as another language (Esperanto, Klingon, Berber…, each
 * then translated), with the light tables first 42, and it settles 233 of 413 issue texts of the
 * development set without the normal tables.
 */
export function settledAsEnglish(prose: string, light: BestGuess): boolean {
  const settling = settlingGuess(prose);
  return settling !== null && light?.lang === settling.lang && light.accuracy >= settling.minAccuracy;
}

/**
 * The light guess that would settle `prose` ({@link settledAsEnglish}), as data a detection thread
 * can check by itself before building the normal tables; null when no guess can (the prose is not
 * plain ASCII).
 */
export function settlingGuess(prose: string): { lang: string; minAccuracy: number } | null {
  return /^[\x20-\x7e]*$/.test(prose) ? { lang: 'en', minAccuracy: MIN_LANGUAGE_CONFIDENCE } : null;
}

/** The detection from the detector's best guess for the prose (tinyld's `detectAll(prose)[0]`). */
export function detectionOf(best: { lang: string; accuracy: number } | undefined): LanguageDetection {
  if (!best || best.accuracy < MIN_LANGUAGE_CONFIDENCE) return { language: null, confidence: best?.accuracy ?? 0 };
  return { language: best.lang, confidence: Math.round(best.accuracy * 1000) / 1000 };
}
