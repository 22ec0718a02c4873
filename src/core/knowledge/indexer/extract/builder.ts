import type { Node } from 'web-tree-sitter';
import type {
  ExtractedImport,
  ExtractedRationale,
  ExtractedReference,
  ExtractedSymbol,
  FileExtraction,
  ParsedLanguage,
  RationaleTag,
  ReferenceKind,
  SymbolKind,
} from './types';

/** A symbol as a language handler describes it; the builder adds qualified name and parent. */
export interface SymbolInput {
  name: string;
  kind: SymbolKind;
  /** The node whose range the symbol covers (the whole declaration, decorators included). */
  node: Node;
  signature: string;
  docstring: string | null;
  isExported: boolean;
  /** Overrides the enclosing scope as parent (e.g. Go methods attach to their receiver type). */
  parent?: number | null;
  /** Overrides the qualifier prefix (e.g. Rust `impl Foo` or a Go receiver). */
  qualifier?: string;
}

interface Scope {
  symbol: number | null;
  end: number;
  qualifiedName: string;
}

const MAX_NAME = 200;
const MAX_DOC = 8000;
const MAX_RATIONALE = 500;
const TAG_RE = /^(TODO|FIXME|HACK|NOTE|WHY|XXX)\b[\s:(\-–]*(.*)$/s;
const INLINE_TAG_RE = /\b(TODO|FIXME|HACK|NOTE|WHY|XXX)(?:\([^)]*\))?:\s*(.*)$/s;
const BECAUSE_RE = /\b(because|so that|otherwise)\b/i;
const WHY_RE = /\bwhy\b/i;
const LEGALESE_RE = /licen[cs]e|copyright|warrant/i;
/**
 * A word that every comment `classifyRationale` accepts contains, as a whole word, in its raw
 * text: each pattern above needs one of these words (any case covers the case-sensitive tags),
 * and stripping comment markers only removes non-word characters at line starts and a trailing
 * `*\/`, so the word boundaries hold in the raw text too. Keep it in step with the patterns above.
 */
const RATIONALE_HINT_RE = /\b(?:TODO|FIXME|HACK|NOTE|WHY|XXX|because|so that|otherwise)\b/gi;

/** Collapses all whitespace runs to one space and trims; caps very long text. */
export function collapse(text: string, max = 400): string {
  // Long texts (a module-level table, a whole class) are collapsed from a prefix: when that prefix
  // already yields more than `max` characters the rest cannot change the result.
  const prefixLength = max * 4 + 64;
  if (text.length > prefixLength) {
    const head = text.slice(0, prefixLength).replace(/\s+/g, ' ').trimStart();
    if (head.length > max + 1) return `${head.slice(0, max - 1)}…`;
  }
  const out = text.replace(/\s+/g, ' ').trim();
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** 1-based line of a node's start. */
export function lineOf(node: Node): number {
  return node.startPosition.row + 1;
}

/** Removes comment markers (`#`, `//`, `/* *\/`, leading `*`) from a comment's text. */
export function stripCommentMarkers(text: string): string {
  return text
    .replace(/^\s*(\/\*+!?|\/\/+!?|#+!?)/, '')
    .replace(/\*+\/\s*$/, '')
    .split('\n')
    .map((l) => l.replace(/^\s*(\*(?!\/)|\/\/+|#+)?\s?/, ''))
    .join('\n')
    .trim();
}

/** Classifies a comment as rationale, or null when it is not one. */
export function classifyRationale(rawComment: string): { tag: RationaleTag; text: string } | null {
  const text = stripCommentMarkers(rawComment);
  if (!text) return null;
  const tagged = TAG_RE.exec(text) ?? INLINE_TAG_RE.exec(text);
  if (tagged) return { tag: tagged[1] as RationaleTag, text: collapse(tagged[2] || text, MAX_RATIONALE) };
  if (text.length < 12 || LEGALESE_RE.test(text)) return null;
  if (BECAUSE_RE.test(text)) return { tag: 'BECAUSE', text: collapse(text, MAX_RATIONALE) };
  if (WHY_RE.test(text)) return { tag: 'WHY', text: collapse(text, MAX_RATIONALE) };
  return null;
}

/**
 * The next place at or after `from` where `text` holds a word that rationale needs (see
 * `classifyRationale`), as `[start, end)` UTF-16 indexes; null when there is none. A comment with
 * no such word is never rationale, so the extractor only looks at comments found this way.
 */
export function nextRationaleHint(text: string, from: number): [number, number] | null {
  RATIONALE_HINT_RE.lastIndex = from;
  const match = RATIONALE_HINT_RE.exec(text);
  return match ? [match.index, match.index + match[0].length] : null;
}

/**
 * Collects what a language handler finds, in document order. Captures arrive sorted by start
 * position, so the innermost enclosing symbol is the top of a stack of scopes that have not ended.
 */
export class ExtractionBuilder {
  readonly symbols: ExtractedSymbol[] = [];
  readonly references: ExtractedReference[] = [];
  readonly imports: ExtractedImport[] = [];
  readonly rationale: ExtractedRationale[] = [];
  moduleDoc: string | null = null;
  /** Free for handlers: names already recorded (e.g. a module variable assigned twice). */
  readonly seen = new Set<string>();
  private readonly stack: Scope[] = [];

  constructor(readonly language: ParsedLanguage) {}

  /** The innermost open scope at `pos` (a UTF-16 index); positions must not decrease between calls. */
  scopeAt(pos: number): Scope | null {
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.end <= pos) this.stack.pop();
    return this.stack[this.stack.length - 1] ?? null;
  }

  /** Index of the innermost enclosing symbol at `pos`, or null at module level. */
  enclosingAt(pos: number): number | null {
    return this.scopeAt(pos)?.symbol ?? null;
  }

  /** Kind of the innermost enclosing symbol at `pos`, or null. */
  enclosingKindAt(pos: number): SymbolKind | null {
    const index = this.enclosingAt(pos);
    return index === null ? null : this.symbols[index]!.kind;
  }

  /** Adds a symbol and opens its scope; returns its index. */
  addSymbol(input: SymbolInput): number {
    const scope = this.scopeAt(input.node.startIndex);
    const parent = input.parent !== undefined ? input.parent : (scope?.symbol ?? null);
    const prefix = input.qualifier ?? scope?.qualifiedName ?? '';
    const qualifiedName = prefix ? `${prefix}.${input.name}` : input.name;
    const index = this.symbols.length;
    this.symbols.push({
      name: input.name,
      qualifiedName,
      kind: input.kind,
      signature: input.signature,
      docstring: input.docstring === null ? null : input.docstring.slice(0, MAX_DOC),
      startLine: lineOf(input.node),
      endLine: input.node.endPosition.row + 1,
      parent,
      isExported: input.isExported,
    });
    this.stack.push({ symbol: index, end: input.node.endIndex, qualifiedName });
    return index;
  }

  /** Opens a scope that qualifies names without being a symbol (Rust `impl T`, C++ `namespace`). */
  openQualifier(node: Node, qualifiedName: string, symbol: number | null = null): void {
    this.scopeAt(node.startIndex);
    this.stack.push({ symbol, end: node.endIndex, qualifiedName });
  }

  /** Index of a symbol already seen by qualified name (Go receivers, Rust impl, C++ `A::f`), or null. */
  findSymbol(qualifiedName: string): number | null {
    const index = this.symbols.findIndex((s) => s.qualifiedName === qualifiedName);
    return index < 0 ? null : index;
  }

  /** Records a use of `name` at `node`. */
  addReference(name: string, kind: ReferenceKind, node: Node, fromSymbol?: number | null): void {
    const written = collapse(name, MAX_NAME);
    if (!written) return;
    const from = fromSymbol !== undefined ? fromSymbol : this.enclosingAt(node.startIndex);
    this.references.push({ name: written, kind, line: lineOf(node), fromSymbol: from });
  }

  /** Records an import statement (fields default to the common case). */
  addImport(node: Node, imp: Partial<ExtractedImport> & { specifier: string }): void {
    this.imports.push({
      names: [],
      alias: null,
      level: 0,
      isReexport: false,
      isSystem: false,
      line: lineOf(node),
      ...imp,
    });
  }

  /** Records a call captured as its callee: a bare identifier is a `call`, anything dotted an `attribute_call`. */
  addCall(callee: Node): void {
    this.addReference(callee.text, callee.type === 'identifier' ? 'call' : 'attribute_call', callee);
  }

  /** Records an import statement and the `import` reference to its module (at `referenceNode`, default the statement). */
  addImportWithReference(node: Node, imp: Partial<ExtractedImport> & { specifier: string }, referenceNode: Node = node): void {
    this.addImport(node, imp);
    this.addReference(imp.specifier, 'import', referenceNode);
  }

  /**
   * Records a comment when it is a rationale comment, attached to the innermost symbol open at its
   * start (so comments come in document order along with the symbols; see `scopeAt`).
   */
  addComment(node: Node): void {
    const found = classifyRationale(node.text);
    if (!found) return;
    this.rationale.push({ ...found, line: lineOf(node), fromSymbol: this.enclosingAt(node.startIndex) });
  }

  /** The finished extraction. */
  finish(hasSyntaxErrors: boolean): FileExtraction {
    return {
      language: this.language,
      symbols: this.symbols,
      references: this.references,
      imports: this.imports,
      rationale: this.rationale,
      moduleDoc: this.moduleDoc,
      hasSyntaxErrors,
    };
  }
}
