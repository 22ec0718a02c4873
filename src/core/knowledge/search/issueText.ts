/**
 * Issue-style query analysis: split a task text (an issue, a chat question, a retrieval task) into
 * prose, code, tracebacks and pasted output, and rebuild from it the text the rankers read. Pasted
 * output (logs, linter reports, an interactive session's banner and results) names files and words
 * the issue is not about: it is left out, but for the error lines in it. From a traceback come the
 * error line and its frames (the file path and function of each frame, innermost first, frames of
 * the standard library left out); from code, the names it calls and imports. A text with none of
 * these (a commit message, a short question) comes back as it is, and very long prose is capped.
 * Whatever the text is made of, the files it links to (a source-host URL of a file) and the Python
 * modules its prose names (`werkzeug.http.parse_date`) are kept apart: they name files outright.
 */

/** What an issue text is made of. */
export interface IssueText {
  /** The prose, fenced and session blocks cut out (inline `code` kept), at most {@link ISSUE_TEXT.proseChars} characters. */
  prose: string;
  /** Error lines (`ValueError: bad token`), from tracebacks and pasted output. */
  errors: string[];
  /** Frames of pasted tracebacks, innermost first: the path as written (site-packages prefix cut) and the function. */
  frames: Array<{ path: string; function?: string }>;
  /** Names the code blocks call, import or define, in order of appearance. */
  identifiers: string[];
  /** True when anything was cut out or capped, i.e. the text is not plain prose. */
  structured: boolean;
  /** File paths of source-host links (`…/blob/<ref>/lib/a/b.py#L96` → lib/a/b.py), lower case, unique. */
  links: string[];
  /** Dotted Python names of the prose (`sqlalchemy.orm.session.Session`), not imports, lower case, unique. */
  modules: string[];
}

/**
 * Caps of what a text contributes. Not tuned: chosen so that no commit message of the development
 * repositories is changed (their longest is about 3,000 characters; docs/search.md).
 */
export const ISSUE_TEXT = {
  /** Prose kept, in characters (the head of the issue says what it is about). */
  proseChars: 4000,
  /** Frames kept per text, innermost first. */
  frames: 6,
  /** Identifiers kept from code blocks. */
  identifiers: 16,
  /** Error lines kept. */
  errors: 3,
} as const;

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})[ \t]*([\w+-]*)/;
const PY_FRAME = /File "([^"]+)", line \d+(?:, in ([\w<>.]+))?/g;
const JS_FRAME = /at (?:([\w$.<>[\] ]+?) \()?((?:[A-Za-z]:)?[^\s():]+\.[cm]?[jt]sx?):\d+(?::\d+)?\)?/g;
const ERROR_LINE = /^\s*((?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)(?::[^\n]*)?)$/gm;
const TRACEBACK_START = /^Traceback \(most recent call last\):$/m;
const SESSION_PROMPT = /^(>>>|\.\.\.|In \[\d+\]:|\$|>) ?/;
/** Languages of fenced blocks that hold code, not output. */
const CODE_LANGUAGES = /^(py|python|python3|pycon|js|javascript|jsx|ts|typescript|tsx|mjs|cjs|go|rust|rs|java|rb|ruby|c|cpp|c\+\+|cs|php|sql|vue|svelte)$/i;
/** Languages of fenced blocks that hold output. */
const OUTPUT_LANGUAGES = /^(text|txt|console|shell-session|output|log|plain|pytb|stacktrace|sh-session)$/i;
/** Frames of installed or standard libraries: the prefix up to the package is cut, a stdlib frame dropped. */
const SITE_PACKAGES = /^.*?[\\/](?:site-packages|dist-packages|node_modules)[\\/]/;
const STDLIB_FRAME = /[\\/]lib[\\/]python\d(?:\.\d+)?[\\/]|^<|^node:|^internal[\\/]|[\\/]importlib[\\/]/;

/** Split a task text into prose, error lines, frames and code identifiers (see the module comment). */
export function analyseIssueText(text: string): IssueText {
  const proseParts: string[] = [];
  const codeParts: string[] = [];
  const outputParts: string[] = [];
  let structured = false;
  let last = 0;
  for (const block of fencedBlocks(text)) {
    proseParts.push(text.slice(last, block.start));
    last = block.end;
    structured = true;
    splitBlock(block.body, CODE_LANGUAGES.test(block.language) ? 'code' : OUTPUT_LANGUAGES.test(block.language) ? 'output' : 'unknown', codeParts, outputParts);
  }
  proseParts.push(text.slice(last));
  // Unfenced tracebacks and sessions pasted into the prose.
  const prose: string[] = [];
  for (const part of proseParts) {
    const kept = cutUnfenced(part, codeParts, outputParts);
    if (kept !== part) structured = true;
    prose.push(kept);
  }
  let proseText = prose.join('').replace(/\n{3,}/g, '\n\n').trim();
  if (proseText.length > ISSUE_TEXT.proseChars) {
    structured = true;
    proseText = proseText.slice(0, ISSUE_TEXT.proseChars);
  }
  const links = linkedPaths(text);
  if (!structured) return { prose: text, errors: [], frames: [], identifiers: [], structured, links, modules: dottedNames(text) };
  const pasted = [...codeParts, ...outputParts].join('\n');
  return {
    links,
    modules: dottedNames(proseText),
    prose: proseText,
    errors: [...new Set([...pasted.matchAll(ERROR_LINE)].map((m) => (m[1] as string).trim().slice(0, 200)))].slice(-ISSUE_TEXT.errors),
    frames: framesOf(pasted),
    identifiers: identifiersOf(codeParts.join('\n')),
    structured,
  };
}

/**
 * The text the rankers read for a task: the prose, then the error lines, the frames (paths and
 * functions) and the code's identifiers, each on a line of its own. The text itself when it is
 * plain prose.
 */
export function focusText(text: string, issue = analyseIssueText(text)): string {
  if (!issue.structured) return text;
  const lines = [issue.prose, ...issue.errors];
  for (const frame of issue.frames) lines.push(frame.function ? `${frame.path} ${frame.function}` : frame.path);
  if (issue.identifiers.length > 0) lines.push(issue.identifiers.join(' '));
  return lines.filter((l) => l.trim() !== '').join('\n');
}

/**
 * The fenced blocks of a text, in one pass over its lines (a regular expression with a
 * back-reference took seconds on a text of many fences): a block opens with three or more backticks
 * or tildes and closes at a line of at least as many of the same; an unclosed block runs to the end.
 */
function fencedBlocks(text: string): Array<{ start: number; end: number; language: string; body: string }> {
  const blocks: Array<{ start: number; end: number; language: string; body: string }> = [];
  let open: { start: number; bodyStart: number; fence: string; language: string } | undefined;
  let offset = 0;
  for (const line of text.split('\n')) {
    const next = offset + line.length + 1;
    if (!open) {
      const m = line.match(FENCE_OPEN);
      if (m) open = { start: offset, bodyStart: Math.min(next, text.length), fence: m[1] as string, language: m[2] ?? '' };
    } else {
      const trimmed = line.trim();
      if (trimmed.length >= open.fence.length && trimmed === open.fence[0]!.repeat(trimmed.length) && /^ {0,3}\S/.test(line)) {
        blocks.push({ start: open.start, end: Math.min(next, text.length), language: open.language, body: text.slice(open.bodyStart, offset) });
        open = undefined;
      }
    }
    offset = next;
  }
  if (open) blocks.push({ start: open.start, end: text.length, language: open.language, body: text.slice(open.bodyStart) });
  return blocks;
}

/** Sort one block's lines into code and output: a session's prompts are code, what follows them output. */
function splitBlock(body: string, kind: 'code' | 'output' | 'unknown', code: string[], output: string[]): void {
  if (TRACEBACK_START.test(body) || (kind !== 'code' && /^\s*(File "|at .+:\d+)/m.test(body))) {
    output.push(body);
    return;
  }
  const lines = body.split('\n');
  if (lines.some((l) => SESSION_PROMPT.test(l) && /^(>>>|In \[)/.test(l))) {
    for (const line of lines) (SESSION_PROMPT.test(line) ? code : output).push(line.replace(SESSION_PROMPT, ''));
    return;
  }
  if (kind === 'code' || (kind === 'unknown' && looksLikeCode(lines))) code.push(body);
  else output.push(body);
}

/** True when most non-blank lines of a block read as code: calls, assignments, definitions, braces. */
function looksLikeCode(lines: string[]): boolean {
  const filled = lines.filter((l) => l.trim() !== '');
  if (filled.length === 0) return false;
  const code = filled.filter((l) => /^\s*(def |class |import |from \S+ import |return\b|if |for |while |const |let |var |function\b|export |async |await |@\w)|[\w\])]\s*\(.*\)\s*[;:]?\s*$|^\s*[\w.[\]]+\s*=[^=]|[{}]\s*$/.test(l));
  return code.length >= filled.length / 2;
}

/** Cut unfenced tracebacks and interactive sessions out of prose into output and code; the rest is returned. */
function cutUnfenced(part: string, code: string[], output: string[]): string {
  const lines = part.split('\n');
  const kept: string[] = [];
  let inTrace = false;
  for (const line of lines) {
    if (TRACEBACK_START.test(line)) inTrace = true;
    if (inTrace) {
      output.push(line);
      // The error line ends a traceback.
      if (/^\S/.test(line) && !TRACEBACK_START.test(line)) inTrace = false;
      continue;
    }
    if (/^(>>>|In \[\d+\]:) ?/.test(line)) code.push(line.replace(SESSION_PROMPT, ''));
    else if (/^\s+at .+:\d+:\d+\)?$/.test(line) || /^\s*File ".+", line \d+/.test(line)) output.push(line);
    else kept.push(line);
  }
  return kept.length === lines.length ? part : kept.join('\n');
}

/** The frames of pasted traces, innermost first, without standard-library frames (see ISSUE_TEXT.frames). */
function framesOf(pasted: string): IssueText['frames'] {
  const frames: IssueText['frames'] = [];
  for (const m of pasted.matchAll(PY_FRAME)) frames.push({ path: m[1] as string, ...(m[2] ? { function: m[2] } : {}) });
  // Python prints the innermost frame last, JavaScript first.
  frames.reverse();
  for (const m of pasted.matchAll(JS_FRAME)) frames.push({ path: m[2] as string, ...(m[1] ? { function: m[1].trim() } : {}) });
  const seen = new Set<string>();
  const out: IssueText['frames'] = [];
  for (const frame of frames) {
    if (STDLIB_FRAME.test(frame.path) && !SITE_PACKAGES.test(frame.path)) continue;
    const path = frame.path.replace(SITE_PACKAGES, '').replace(/\\/g, '/');
    const fn = frame.function && !/^<.*>$/.test(frame.function) ? frame.function : undefined;
    const key = `${path}\u0000${fn ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, ...(fn ? { function: fn } : {}) });
  }
  return out.slice(0, ISSUE_TEXT.frames);
}

/** Names code calls (`f(`, `obj.method(`), imports (`from a.b import c`, `import x`) and defines, in order. */
function identifiersOf(code: string): string[] {
  const names: string[] = [];
  for (const m of code.matchAll(/\bfrom\s+([\w.]+)\s+import\s+([\w, ]+)|\bimport\s+([\w.]+)|\b(?:def|class|function)\s+(\w+)|([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\(/g)) {
    if (m[1]) names.push(m[1], ...(m[2] as string).split(',').map((s) => s.trim()));
    else names.push((m[3] ?? m[4] ?? m[5]) as string);
  }
  const skip = /^(print|len|str|int|float|list|dict|set|tuple|range|isinstance|type|super|console\.log|require|if|for|while|return|assert|self|this)$/;
  const out: string[] = [];
  for (const name of names) {
    const clean = name.replace(/^(self|this)\./, '');
    if (clean.length < 2 || skip.test(clean) || out.includes(clean)) continue;
    out.push(clean);
  }
  return out.slice(0, ISSUE_TEXT.identifiers);
}

/**
 * A file link of a source host: GitHub's and GitLab's `/blob/<ref>/<path>` and `/tree/<ref>/<path>`,
 * raw.githubusercontent.com's `/<owner>/<repo>/<ref>/<path>`; `#L96`, `?plain=1` and a sentence's full stop end it.
 */
const FILE_LINK = /https?:\/\/(?:raw\.githubusercontent\.com\/[^/\s]+\/[^/\s]+\/[^/\s]+|[^\s/]+\/\S*?\/(?:-\/)?(?:blob|tree)\/[^/\s]+)\/([\w./-]+\.[A-Za-z]\w{0,5})(?=\.?(?:[#?\s)\]>'"`,;]|$))/g;

/**
 * The paths of the files a text links to (issue #27: sqlalchemy #5557 links
 * `…/blob/<sha>/lib/sqlalchemy/dialects/mssql/pymssql.py#L96` and the file ranked 18th; the file-name
 * rule read the link as one word starting `github.com/` and matched nothing).
 */
function linkedPaths(text: string): string[] {
  return [...new Set([...text.matchAll(FILE_LINK)].map((m) => (m[1] as string).toLowerCase()))];
}

/**
 * Dotted names of prose whose first part is lower case (`werkzeug.http.parse_date`,
 * `starlette.middleware.base`), the way Python modules are named; not after `from`/`import` (an
 * import in a pasted example names what the example uses, not what the issue is about), not in a
 * link or a file name (`www.example.org`, `setup.cfg` are left to the matching, which needs a
 * module file of two parts or more).
 */
function dottedNames(prose: string): string[] {
  const out = new Set<string>();
  for (const m of prose.matchAll(/(^|[^\w./:-])([a-z_][a-z0-9_]*(?:\.[A-Za-z_]\w*)+)(?![\w/-])/g)) {
    const before = prose.slice(Math.max(0, (m.index ?? 0) - 8), (m.index ?? 0) + (m[1] as string).length);
    if (/\b(from|import)\s+$/.test(before)) continue;
    out.add((m[2] as string).toLowerCase());
  }
  return [...out];
}
