import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { focusText } from '../../knowledge/search/issueText';

/** What a task is asking for, by its wording. */
export type TaskType = 'bugfix' | 'feature' | 'refactor' | 'test' | 'docs' | 'other';

/** A file the task names, and the indexed file it resolved to (null when the index has none). */
export interface FileMention {
  text: string;
  path: string | null;
}

/** A symbol the task names and the indexed definitions it resolved to (paths, up to 5). */
export interface SymbolMention {
  text: string;
  definedIn: string[];
}

/** One stack frame of a pasted trace: the file as written, its indexed path when found, the line and function. */
export interface StackFrame {
  file: string;
  path: string | null;
  line: number;
  function?: string;
}

/** An error message (`ValueError: bad token`) and the frames of its trace. */
export interface ErrorMention {
  type: string;
  message: string;
  language: 'python' | 'javascript';
  frames: StackFrame[];
}

/** The deterministic part of task analysis: no model, same input → same output. */
export interface TaskExtraction {
  files: FileMention[];
  symbols: SymbolMention[];
  errors: ErrorMention[];
  keywords: string[];
  taskType: TaskType;
}

const EXTENSIONS = 'py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|md|rst|toml|json|ya?ml|cfg|ini|sql|sh|html|css';
const PATH_RE = new RegExp(`(?:^|[\\s"'\`(\\[<])((?:[\\w.@-]+/)*[\\w@-][\\w.-]*\\.(?:${EXTENSIONS}))(?=$|[\\s"'\`)\\]>:,;.!?])`, 'gim');
const PY_FRAME_RE = /File "([^"]+)", line (\d+)(?:, in ([\w<>.]+))?/g;
const JS_FRAME_RE = /at (?:([\w$.<>[\] ]+?) \()?((?:[A-Za-z]:)?[^\s():]+\.[cm]?[jt]sx?):(\d+)(?::\d+)?\)?/g;
const ERROR_LINE_RE = /^\s*((?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt))(?::\s*(.*))?$/gm;
const STOPWORDS = new Set(
  'the a an and or of to in on for with without from by at as is are was were be been it its this that these those when then than so not no do does did can could should would will must may might fix add make use using into out up down after before about over under only also just there their them they we you your our should which what why how where who all any each some such via per'.split(' '),
);

/** A word that looks like code: snake_case, camelCase / PascalCase with an inner capital, a call `f()`, a dotted name, or backticked. */
function symbolCandidates(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\s]{2,80})`/g)) out.add((m[1] as string).replace(/\(\)$/, ''));
  for (const m of text.matchAll(/\b([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(\(\))?/g)) {
    const word = m[1] as string;
    if (m[2] || /_/.test(word.replace(/^_+/, '')) || /[a-z][A-Z]/.test(word) || /^[A-Z][a-z]+[A-Z]/.test(word) || (word.includes('.') && !/\.(?:[a-z]{1,4})$/.test(word))) out.add(word);
  }
  return [...out];
}

/** The indexed path a written path names: exact, else the one indexed file ending with it (shortest first). */
function resolvePath(written: string, paths: readonly string[]): string | null {
  const clean = written.replace(/\\/g, '/').replace(/^\.\//, '');
  if (paths.includes(clean)) return clean;
  const suffix = clean.startsWith('/') ? clean : `/${clean}`;
  const hits = paths.filter((p) => clean.endsWith(`/${p}`) || p.endsWith(suffix));
  return hits.sort((a, b) => a.length - b.length)[0] ?? null;
}

function classify(text: string, hasError: boolean): TaskType {
  const t = text.toLowerCase();
  if (hasError || /\b(fix|bug|broken|crash|fails?|failing|error|exception|regression|wrong|incorrect)\b/.test(t)) return 'bugfix';
  if (/\b(refactor|rename|extract|clean ?up|simplify|move|split|reorgani[sz]e)\b/.test(t)) return 'refactor';
  if (/\b(tests?|coverage|unit test|spec)\b/.test(t) && !/\b(add|implement)\b.*\bfeature\b/.test(t)) return 'test';
  if (/\b(docs?|document|documentation|readme|docstring|comment)\b/.test(t)) return 'docs';
  if (/\b(add|implement|support|create|introduce|new|allow|enable)\b/.test(t)) return 'feature';
  return 'other';
}

/**
 * Deterministic task analysis: files named (resolved against the index), symbols named (kept when
 * the index defines them), error messages with their Python or JavaScript/TypeScript stack frames,
 * keywords and the task type. Reads the index only through the KnowledgeBase.
 */
export function extractTask(text: string, kb: KnowledgeBase): TaskExtraction {
  // The index's file list, read only when the text names a path or has a stack frame (most task
  // texts do not, and a solve run analyses one per pass: 1.5 ms on a 643-file index).
  let known: string[] | undefined;
  const paths = () => (known ??= kb.getFiles().map((f) => f.path));
  const frames: Array<StackFrame & { language: ErrorMention['language'] }> = [];
  for (const m of text.matchAll(PY_FRAME_RE)) frames.push({ file: m[1] as string, path: resolvePath(m[1] as string, paths()), line: Number(m[2]), ...(m[3] ? { function: m[3] } : {}), language: 'python' });
  for (const m of text.matchAll(JS_FRAME_RE)) frames.push({ file: m[2] as string, path: resolvePath(m[2] as string, paths()), line: Number(m[3]), ...(m[1] ? { function: m[1].trim() } : {}), language: 'javascript' });
  const errors: ErrorMention[] = [];
  for (const m of text.matchAll(ERROR_LINE_RE)) {
    const type = m[1] as string;
    // The trace's frames say the language; without frames, the error type does (TypeError is JS's and Python's: Python).
    const language = frames.some((f) => f.language === 'python') ? 'python' : frames.length || /^(ReferenceError|RangeError|SyntaxError)$/.test(type) ? 'javascript' : 'python';
    errors.push({ type, message: (m[2] ?? '').trim(), language, frames: frames.filter((f) => f.language === language).map(({ language: _l, ...f }) => f) });
  }
  const files = new Map<string, FileMention>();
  for (const m of text.matchAll(PATH_RE)) {
    const written = m[1] as string;
    if (!files.has(written)) files.set(written, { text: written, path: resolvePath(written, paths()) });
  }
  for (const f of frames) if (!files.has(f.file)) files.set(f.file, { text: f.file, path: f.path });
  const symbols: SymbolMention[] = [];
  const fileTexts = new Set(files.keys());
  for (const candidate of symbolCandidates(text)) {
    if (fileTexts.has(candidate) || [...fileTexts].some((f) => f.endsWith(candidate))) continue;
    const last = candidate.split('.').pop() as string;
    const defs = kb.searchSymbolsByName(candidate, 5);
    const found = defs.length ? defs : candidate.includes('.') ? kb.searchSymbolsByName(last, 5) : [];
    if (found.length) symbols.push({ text: candidate, definedIn: [...new Set(found.map((s) => s.path))] });
  }
  for (const f of frames) {
    if (f.function && !symbols.some((s) => s.text === f.function) && !/^<.*>$/.test(f.function)) {
      const defs = kb.searchSymbolsByName(f.function, 5);
      if (defs.length) symbols.push({ text: f.function, definedIn: [...new Set(defs.map((s) => s.path))] });
    }
  }
  // Keywords come from the search's query analysis: prose, error lines, frames and code names, not pasted output.
  const keywords = [...new Set((focusText(text).toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []).filter((w) => !STOPWORDS.has(w)))];
  return { files: [...files.values()], symbols, errors, keywords, taskType: classify(text, errors.length > 0) };
}
