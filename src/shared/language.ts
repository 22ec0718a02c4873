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

/**
 * English function words: two distinct ones in plain-ASCII prose, with none of
 * {@link OTHER_FUNCTION_WORDS}, settle the question as English before any tables load
 * ({@link plainlyEnglish}). A few are words of another language too ("is" in Dutch, "will" in
 * German); the second word and the other language's own function words keep those out.
 */
const ENGLISH_FUNCTION_WORDS = new Set(
  'the is are were been have has will this that these those there their they you your with from about into what where which whose why how when does should would could'.split(' '),
);

/**
 * Function words of the other languages written in Latin letters that most often come without
 * accents (German, Dutch, French, Spanish, Italian, Portuguese, the Scandinavian and West Slavic
 * ones): any of them leaves the question to the tables, even where English has the word too ("do",
 * "as", "was", "no").
 */
const OTHER_FUNCTION_WORDS = new Set(
  (
    'der die das und ist nicht ein eine wird wie wo warum mit auf fur den dem des zu von sich auch es er sie wir ihr was ' +
    'le la les et est une un du que qui dans pour pas avec sur ce il elle nous vous ou ' +
    'el los las y una del en por con para se como donde porque cuando esta este ' +
    'lo gli di che non per sono dove come perche della ' +
    'o os as um uma do da dos das em no na nao onde ' +
    'de het een van op te dat niet hoe waar waarom wordt deze ' +
    'och att det som inte hur var ett og ikke hvor hvordan til ' +
    'je na ve za od jak kde co nie jest w z i'
  ).split(' '),
);

/**
 * Whether `prose` (from {@link proseOf}) is plainly English without asking tinyld: plain ASCII, at
 * least two distinct {@link ENGLISH_FUNCTION_WORDS} and none of {@link OTHER_FUNCTION_WORDS}
 * ("Where is the cache invalidated?", not "Where do we …", which goes to the tables). It saves
 * loading the light tables (~17 ms) on most English questions. Measured (docs/chat.md, "Follow-ups
 * and languages"): it settles none of 9,001 non-English gettext texts in 30 languages with enough
 * prose and none of 30 hand-written questions (14 languages, and English words mixed into Dutch and
 * German), and 17 of 20 English questions.
 */
export function plainlyEnglish(prose: string): boolean {
  if (!/^[\x20-\x7e]*$/.test(prose)) return false;
  const english = new Set<string>();
  for (const word of prose.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (ENGLISH_FUNCTION_WORDS.has(word)) english.add(word);
    else if (OTHER_FUNCTION_WORDS.has(word)) return false;
  }
  return english.size >= 2;
}

/** The detection of prose {@link plainlyEnglish} settles: English, without a detector's score. */
export const PLAINLY_ENGLISH: LanguageDetection = { language: 'en', confidence: 1 };

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
