/**
 * Query processing for code search: split identifiers, drop stop words and build FTS5 MATCH
 * expressions that can never be a syntax error, whatever the user typed.
 */
import { analyseIssueText, focusText } from './issueText';
import { ISSUE_SHAPED } from './rankingConstants';

/** English and code-question filler words that carry no signal for code search. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be by can do does for from how i if in into is it its me my of on or our ' +
    'should so that the their then there these this to was we what when where which who why will ' +
    'with you your code file files function method find show where get set use used using'
  ).split(' '),
);
// `get`, `set` and `use` are in the list above only as whole words of a sentence; as parts of an
// identifier (getUser) they are kept inside the identifier term itself.
STOP_WORDS.delete('get');
STOP_WORDS.delete('set');
STOP_WORDS.delete('use');

/** The words of a text without the stop words above (any case), joined by spaces: prose for a tokenizer. */
export function withoutStopWords(text: string): string {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w.toLowerCase())).join(' ');
}

/** A processed query: what to match and what to look for among symbol names. */
export interface ParsedQuery {
  /** The text as typed, trimmed. */
  raw: string;
  /**
   * What the rankers read: `raw` itself for plain prose; for an issue with code, tracebacks or
   * pasted output, its prose, error lines, frames and code identifiers (see issueText.ts).
   */
  text: string;
  /** Lower-cased search terms (identifier parts and whole identifiers), unique, stop words removed. */
  terms: string[];
  /** Terms that get an FTS5 prefix match (`term*`). */
  prefixTerms: string[];
  /** Identifiers as typed (`getUserById`, `parse_headers`, `join` from `os.path.join`), for definition lookup. */
  identifiers: string[];
  /** Lower-cased candidate symbol names: identifiers, plus snake_case and camelCase joins of the words. */
  symbolNames: string[];
  /**
   * True when the query asks about tests (test files are then not demoted): it says `test`,
   * `tests`, `testing` or `spec`, and is not issue-shaped (`ISSUE_SHAPED.testsAsked`: a bug report's
   * "test" is the reporter's).
   */
  mentionsTests: boolean;
  /** Paths of the files the text links to (source-host URLs), lower case (issueText.ts). */
  linkedPaths: string[];
  /** Dotted Python names of the prose (`werkzeug.http.parse_date`), lower case (issueText.ts). */
  modules: string[];
  /**
   * True when the text is shaped like a bug report rather than a sentence: it holds a code block,
   * a traceback, an interactive session or pasted output, or prose past the cap
   * (`IssueText.structured`). A commit message or a one-line question is not; a chat question with
   * a pasted traceback or example is. Such a text names the symptom and the API the reporter
   * called, not the code to change; the symbol-graph walk's value is added for it (`ISSUE_SHAPED`
   * in rankingConstants.ts).
   */
  issueShaped: boolean;
  /**
   * The first line of an issue-shaped text of several lines, parsed alone: a bug report's title,
   * its author's one-line summary (`Session cookie triggers failure on websocket connection
   * upgrade`), which names the part of the project the report is about before the body's pasted
   * frames and examples do. Absent for any other text (`ISSUE_SHAPED.titleText`).
   */
  title?: ParsedQuery;
}

/**
 * Split one identifier into lower-cased words: `getHTTPResponse2` → get, http, response2;
 * `parse_headers` → parse, headers.
 */
export function splitIdentifier(identifier: string): string[] {
  return identifier
    .split(/[^A-Za-z0-9]+/)
    .flatMap((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').split(' '))
    .map((w) => w.toLowerCase())
    .filter((w) => w.length > 0);
}

/** True when a word looks like an identifier rather than prose: mixed case, underscores or digits. */
function isIdentifierLike(word: string): boolean {
  return /[a-z][A-Z]|_|[A-Za-z][0-9]/.test(word);
}

/** Turn user input into terms; never throws. */
export function parseQuery(input: string): ParsedQuery {
  const raw = input.trim();
  const issue = analyseIssueText(raw);
  const text = focusText(raw, issue);
  const words = text.match(/[A-Za-z0-9_]+/g) ?? [];
  const terms = new Set<string>();
  const prefixTerms = new Set<string>();
  const identifiers = new Set<string>();
  const plainWords: string[] = [];
  for (const word of words) {
    const lower = word.toLowerCase();
    const parts = splitIdentifier(word);
    const identifierLike = isIdentifierLike(word);
    if (!identifierLike && STOP_WORDS.has(lower)) continue;
    if (identifierLike || !/^[0-9]+$/.test(word)) identifiers.add(word.replace(/^_+|_+$/g, '') || word);
    if (parts.length > 1) terms.add(parts.join(''));
    for (const part of parts) if (!STOP_WORDS.has(part) || identifierLike) terms.add(part);
    if (!identifierLike) plainWords.push(lower);
  }
  // Vowel-less abbreviations (ctx, cfg, msg, pkg) and the last word (perhaps typed incompletely) match as prefixes.
  const last = words.length > 0 ? words[words.length - 1]!.toLowerCase() : '';
  for (const term of terms) if (/^[b-df-hj-np-tv-z]{2,4}$/.test(term) || (term === last && term.length >= 3)) prefixTerms.add(term);
  const symbolNames = new Set([...identifiers].map((i) => i.toLowerCase()));
  if (plainWords.length >= 2 && plainWords.length <= 4) {
    symbolNames.add(plainWords.join('_'));
    symbolNames.add(plainWords.join(''));
  }
  return {
    raw,
    text,
    terms: [...terms].filter((t) => t.length > 0).slice(0, 24),
    prefixTerms: [...prefixTerms],
    identifiers: [...identifiers].filter((i) => i.length >= 2),
    symbolNames: [...symbolNames].filter((n) => n.length >= 2),
    mentionsTests: (!issue.structured || ISSUE_SHAPED.testsAsked !== 0) && words.some((w) => /^tests?$|^testing$|^spec$/i.test(w)),
    linkedPaths: issue.links,
    modules: issue.modules,
    issueShaped: issue.structured,
    ...(issue.structured ? titleOf(raw) : {}),
  };
}

/** The first line of a text of several lines, parsed alone, when it has words to search for. */
function titleOf(raw: string): { title?: ParsedQuery } {
  const newline = raw.indexOf('\n');
  if (newline < 0) return {};
  const title = parseQuery(raw.slice(0, newline));
  return title.terms.length > 0 ? { title } : {};
}

/** Quote a term for FTS5: a double-quoted string with inner quotes doubled is always a literal. */
export function quoteFts(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/**
 * An FTS5 MATCH expression that ORs every term (BM25 then rewards files matching more of them),
 * with prefix terms as `"term" *`. Returns null when nothing is left to search for.
 */
export function buildMatchExpression(query: ParsedQuery): string | null {
  if (query.terms.length === 0) return null;
  const prefixes = new Set(query.prefixTerms);
  return query.terms.map((t) => (prefixes.has(t) ? `${quoteFts(t)} *` : quoteFts(t))).join(' OR ');
}
