/**
 * The precision stage's deterministic part: which symbols of the files scope kept are judged, in
 * what order, and what the judge sees of each. No model call here.
 */
import type { Reason } from '../../../../shared/contract/reasons';
import type { KnowledgeBase } from '../../../knowledge/kb/knowledgeBase';
import type { SymbolRecord } from '../../../knowledge/kb/types';
import type { ContextFile, ContextSymbol } from '../stage';
import type { TaskRecord } from '../taskAnalysis';

/** One symbol candidate: the record, its file, and how it was found. */
export interface SymbolCandidate {
  symbol: SymbolRecord;
  file: ContextFile;
  /** named-in-task / symbol-link / test-assertion; empty for the file's other symbols. */
  found: Reason[];
  /** Named in the task: relevant without a pass-1 judgment (as seed files skip scope's). */
  named: boolean;
}

const lower = (s: string) => s.toLowerCase();

/**
 * Deterministic symbol extraction over the files scope kept: each file's top-level symbols and
 * methods from the index; first those the task names (extraction or enrichment), then those linked
 * by a reference to a named symbol (calls it or is called by it) or named in an assertion of a test
 * among the files ({@link assertionNames}), then the rest by how much of the task their code holds.
 */
export function symbolCandidates(kb: KnowledgeBase, task: TaskRecord, files: readonly ContextFile[]): SymbolCandidate[] {
  const namedTexts = [...task.extraction.symbols.map((s) => s.text), ...(task.enrichment.status === 'ok' ? task.enrichment.symbols : [])];
  const named = new Map<string, string>();
  for (const t of namedTexts) {
    named.set(lower(t), t);
    // `Parser.parse` names `parse` in class Parser; a bare tail matches too.
    const tail = t.split('.').pop();
    if (tail && !named.has(lower(tail))) named.set(lower(tail), t);
  }
  const perFile = files.map((file) => ({ file, isTest: kb.getFile(file.fileId)?.isTest ?? false, symbols: kb.getSymbolsForFile(file.fileId).filter((s) => s.parentId === null || s.kind === 'method') }));
  const namedOf = (s: SymbolRecord) => named.get(lower(s.qualifiedName)) ?? named.get(lower(s.name));
  // Links: every symbol reached by one reference edge from a named symbol anywhere in the kept files.
  const links = new Map<number, Reason>();
  for (const { symbols } of perFile) {
    for (const s of symbols) {
      const text = namedOf(s);
      if (!text) continue;
      for (const n of kb.getSymbolNeighbors(s.id, 'both')) {
        if (n.symbol && !links.has(n.symbol.id)) links.set(n.symbol.id, { kind: 'symbol-link', detail: { symbol: s.qualifiedName, direction: n.direction === 'outgoing' ? 'called-by' : 'calls' } });
      }
    }
  }
  const asserted = assertionNames(kb, files);
  const words = taskWords(task);
  const out: Array<SymbolCandidate & { rank: number; evidence: number; order: number }> = [];
  let order = 0;
  for (const { file, isTest, symbols } of perFile) {
    const evidence = words.size ? symbolEvidence(kb, file.fileId, symbols, words) : new Map<number, number>();
    for (const s of symbols) {
      const text = namedOf(s);
      const test = asserted.get(s.name);
      const link = links.get(s.id) ?? (test && !isTest ? ({ kind: 'test-assertion', detail: { test: test.path, line: test.line } } as const) : undefined);
      const found: Reason[] = text ? [{ kind: 'named-in-task', detail: { text } }] : link ? [link] : [];
      out.push({ symbol: s, file, found, named: Boolean(text), rank: text ? 0 : link ? 1 : 2, evidence: evidence.get(s.id) ?? 0, order: order++ });
    }
  }
  return out.sort((a, b) => a.rank - b.rank || b.evidence - a.evidence || a.order - b.order).map(({ rank: _r, evidence: _e, order: _o, ...c }) => c);
}

/** Lines that assert: Python `assert x`, `self.assertEqual(…)`, `pytest.raises(…)`; JS/TS `expect(…)`, `assert(…)`, `assert.equal(…)`, AVA's `t.is(…)`. */
const ASSERTION_RE = /^\s*assert\b|\bself\.assert[A-Z]\w*\(|\bpytest\.raises\(|\bexpect\(|\bassert(?:\.\w+)?\(|\bt\.(?:is|not|deepEqual|notDeepEqual|like|true|false|truthy|falsy|throws|throwsAsync|notThrows|notThrowsAsync|regex|snapshot)\(/;
/** Words of an assertion that are the assertion's own, not the code under test. */
const ASSERTION_WORDS = new Set(
  'assert expect self pytest raises await async true false none null undefined not and isinstance len new typeof instanceof this with for lambda return const let var function def class from import yield'.split(' '),
);

/** The names an assertion line uses (`assert tokenize("1") == …` → tokenize), none when the line does not assert; 3+ characters. */
export function namesInAssertion(text: string): string[] {
  if (!ASSERTION_RE.test(text)) return [];
  // Strings say nothing about the code; `assert.equal(` / `t.is(` / `self.assertIn(` are the assertion itself.
  const code = text.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(/\b(?:assert\.\w+|t\.\w+|self\.assert\w*|pytest\.raises)\s*\(/g, '(');
  const out = new Set<string>();
  for (const m of code.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const name = m[0];
    // Matchers (`toBe`, `toEqual`) and `assertEqual` are the assertion's own words, not the code's.
    if (name.length >= 3 && !ASSERTION_WORDS.has(name.toLowerCase()) && !/^(?:assert|to)[A-Z_]/.test(name)) out.add(name);
  }
  return [...out];
}

/**
 * The names the assertions of the test files among `files` use ({@link namesInAssertion}), each
 * with the first test line that names it. Read from the index's chunks.
 */
export function assertionNames(kb: KnowledgeBase, files: readonly ContextFile[]): Map<string, { path: string; line: number }> {
  const out = new Map<string, { path: string; line: number }>();
  for (const f of files) {
    if (!kb.getFile(f.fileId)?.isTest) continue;
    for (const chunk of kb.getChunksOfFile(f.fileId)) {
      chunk.text.split('\n').forEach((text, i) => {
        for (const name of namesInAssertion(text)) if (!out.has(name)) out.set(name, { path: f.path, line: chunk.startLine + i });
      });
    }
  }
  return out;
}

/** The task's words worth matching in code: its keywords and the parts of the identifiers it names, 3+ letters. */
function taskWords(task: TaskRecord): Set<string> {
  const words = new Set<string>();
  const add = (w: string) => {
    const x = w.toLowerCase();
    if (x.length >= 3) words.add(x);
  };
  for (const k of task.extraction.keywords) add(k);
  for (const s of task.extraction.symbols) for (const part of s.text.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/)) add(part);
  return words;
}

/**
 * How much of the task a symbol's own code mentions: the number of distinct task words found in the
 * lines of its chunks (its name, signature, body). Orders a file's unnamed symbols, so the ones the
 * task is about are judged before the caps are reached, instead of the file's first in source order.
 */
function symbolEvidence(kb: KnowledgeBase, fileId: number, symbols: readonly SymbolRecord[], words: ReadonlySet<string>): Map<number, number> {
  const chunks = kb.getChunksOfFile(fileId);
  const out = new Map<number, number>();
  for (const s of symbols) {
    const seen = new Set<string>();
    for (const c of chunks) {
      if (c.endLine < s.startLine || c.startLine > s.endLine) continue;
      const lines = c.text.split('\n').slice(Math.max(0, s.startLine - c.startLine), Math.max(0, s.endLine - c.startLine + 1));
      for (const token of lines.join('\n').toLowerCase().split(/[^a-z0-9]+/)) if (words.has(token)) seen.add(token);
      // Identifiers in camelCase or snake_case: their parts count too.
      for (const id of lines.join('\n').match(/[A-Za-z][A-Za-z0-9_]{2,}/g) ?? []) for (const part of id.split(/_|(?<=[a-z0-9])(?=[A-Z])/)) if (words.has(part.toLowerCase())) seen.add(part.toLowerCase());
    }
    out.set(s.id, seen.size);
  }
  return out;
}

/** What the judge sees of a symbol: where it is, its signature, docstring and rationale comments. */
export function describeSymbol(kb: KnowledgeBase, c: SymbolCandidate, rationale: Map<number, string[]>): string {
  const s = c.symbol;
  const doc = s.docstring?.split('\n')[0]?.trim();
  const notes = rationale.get(s.id) ?? [];
  return [`symbol: ${s.qualifiedName} (${s.kind})`, `file: ${s.path}:${s.startLine}-${s.endLine}`, `signature: ${s.signature || s.name}`, doc ? `doc: ${doc}` : '', notes.length ? `notes:\n${notes.map((n) => `  ${n}`).join('\n')}` : ''].filter(Boolean).join('\n');
}

/** One import statement from outside the repository, and the local names it binds. */
interface LibraryImport {
  specifier: string;
  line: number;
  /** The statement as written, whitespace collapsed. */
  text: string;
  /** Local name → the name as the library calls it (`np` → numpy, `Client` → httpx.Client). */
  binds: Map<string, string>;
}

/** The statement that starts at `line`, read from the index's chunks until its brackets close (at most 20 lines). */
function statementAt(kb: KnowledgeBase, fileId: number, line: number): string | null {
  const chunk = kb.getChunkOfFileAt(fileId, line);
  if (!chunk || line < chunk.startLine || line > chunk.endLine) return null;
  const lines = chunk.text.split('\n').slice(line - chunk.startLine, line - chunk.startLine + 20);
  const out: string[] = [];
  let depth = 0;
  for (const l of lines) {
    out.push(l.trim());
    depth += (l.match(/[([{]/g) ?? []).length - (l.match(/[)\]}]/g) ?? []).length;
    if (depth <= 0 && !/[\\,]$/.test(l.trim())) break;
  }
  return out.join(' ').replace(/\s+/g, ' ').replace(/([({]) /g, '$1').replace(/ ([)}])/g, '$1').trim();
}

/** The local names a Python or JS/TS import statement binds, each to its library name. */
export function importBindings(language: string, specifier: string, text: string): Map<string, string> {
  const binds = new Map<string, string>();
  const part = (p: string) => p.trim().replace(/^type\s+/, '');
  if (language === 'python') {
    const from = /^from\s+\S+\s+import\s+\(?([^)]*)\)?/.exec(text);
    if (from) {
      for (const p of (from[1] ?? '').split(',').map(part).filter((x) => x && x !== '*')) {
        const [name = '', local] = p.split(/\s+as\s+/);
        binds.set(local ?? name, `${specifier}.${name}`);
      }
    } else {
      for (const p of text.replace(/^import\s+/, '').split(',').map(part).filter(Boolean)) {
        const [name = '', local] = p.split(/\s+as\s+/);
        if (local) binds.set(local, name);
        else binds.set(name.split('.')[0] ?? name, name.split('.')[0] ?? name);
      }
    }
    return binds;
  }
  // JS/TS: import Default, * as ns, { a as b } from 'x'
  const clause = /^import\s+(?:type\s+)?(.*?)\s+from\s+['"]/.exec(text)?.[1] ?? '';
  const braces = /\{([^}]*)\}/.exec(clause);
  for (const p of (braces?.[1] ?? '').split(',').map(part).filter(Boolean)) {
    const [name = '', local] = p.split(/\s+as\s+/);
    binds.set(local ?? name, `${specifier}.${name}`);
  }
  const rest = clause.replace(/\{[^}]*\}/, '').split(',').map(part).filter(Boolean);
  for (const p of rest) {
    const ns = /^\*\s+as\s+([\w$]+)$/.exec(p);
    if (ns?.[1]) binds.set(ns[1], specifier);
    else if (/^[\w$]+$/.test(p)) binds.set(p, `${specifier}.default`);
  }
  return binds;
}

/**
 * A file's imports from outside the repository (Python and JS/TS): statements no indexed file
 * answers that are not relative (`from . import x`, `./x`), with the names they bind.
 */
export function libraryImports(kb: KnowledgeBase, fileId: number): LibraryImport[] {
  const language = kb.getFile(fileId)?.language ?? '';
  if (!['python', 'typescript', 'tsx', 'javascript'].includes(language)) return [];
  const out: LibraryImport[] = [];
  for (const imp of kb.getImports(fileId)) {
    if (imp.resolved || imp.level > 0 || /^[./~]|^@\//.test(imp.specifier) || !imp.specifier) continue;
    const text = statementAt(kb, fileId, imp.line);
    if (!text || !/\bimport\b/.test(text)) continue;
    const binds = importBindings(language, imp.specifier, text);
    if (binds.size) out.push({ specifier: imp.specifier, line: imp.line, text, binds });
  }
  return out;
}

/**
 * Library symbols of a file for the symbols precision kept there: the names those symbols use (a
 * call, a base class or decorator of their code or their methods', a word of their signature) that
 * an import from outside the repository binds — a dependency's or the standard library's. One per
 * import statement, the statement as its signature; type_context without a judgment (R17).
 */
export function librarySymbols(kb: KnowledgeBase, fileId: number, kept: readonly SymbolRecord[]): ContextSymbol[] {
  const imports = libraryImports(kb, fileId);
  if (imports.length === 0 || kept.length === 0) return [];
  const all = kb.getSymbolsForFile(fileId);
  const within = (s: SymbolRecord) => all.filter((x) => x.id === s.id || (x.startLine >= s.startLine && x.endLine <= s.endLine && x.parentId !== null));
  const used = new Set<string>();
  for (const s of kept) {
    for (const x of within(s)) for (const r of kb.getReferencesFrom(x.id)) if (!r.resolved) used.add(r.name);
    for (const m of (s.signature || '').matchAll(/[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g)) used.add(m[0]);
  }
  const out: ContextSymbol[] = [];
  for (const imp of imports) {
    // `import io, logging, os` is one import per module, all on one line: one library symbol for the line.
    if (out.some((o) => o.startLine === imp.line)) continue;
    const names = new Set<string>();
    for (const u of used) {
      const [head = '', ...tail] = u.split('.');
      const lib = imp.binds.get(head);
      if (lib) names.add([lib, ...tail].join('.'));
    }
    if (names.size === 0) continue;
    const qualifiedName = [...names].sort().join(', ');
    out.push({ symbolId: null, name: imp.specifier, qualifiedName, kind: 'library', signature: imp.text, startLine: imp.line, endLine: imp.line, parentId: null, role: 'type_context', reasons: [{ kind: 'library', detail: { module: imp.specifier } }] });
  }
  return out;
}
