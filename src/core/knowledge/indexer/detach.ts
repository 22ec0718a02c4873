/**
 * A copy of `s` that does not share the memory of the string it was cut from. V8 keeps a substring
 * of 13 or more characters (`slice`, `split`, a regex match) as a view of its parent, so one such
 * string kept for the whole run (a cache key, a listed path) keeps the whole parent alive: a file's
 * text, or the complete output of `git ls-files`. Shorter substrings are copies already.
 */
export function detach(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}
