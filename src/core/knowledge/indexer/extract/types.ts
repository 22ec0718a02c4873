/**
 * What the language extractors produce for one file, independent of the database. The indexer
 * stores these; import resolution turns `imports` into file dependencies.
 */

/** Languages we parse with tree-sitter. Every other text file is indexed as text only. */
export type ParsedLanguage = 'python' | 'typescript' | 'tsx' | 'javascript' | 'go' | 'java' | 'csharp' | 'rust' | 'c' | 'cpp';

/** Kinds of symbols across languages. */
export type SymbolKind =
  | 'module'
  | 'class'
  | 'interface'
  | 'type'
  | 'enum'
  | 'struct'
  | 'trait'
  | 'namespace'
  | 'function'
  | 'method'
  | 'constant'
  | 'variable';

/** A definition found in a file. Lines are 1-based and inclusive. */
export interface ExtractedSymbol {
  name: string;
  /** Dotted path inside the file, e.g. `Outer.Inner.method` (the module itself is `''`-free: just its names). */
  qualifiedName: string;
  kind: SymbolKind;
  /** The declaration line(s) up to the body, whitespace-collapsed, e.g. `def get(self, key, default=None)`. */
  signature: string;
  docstring: string | null;
  startLine: number;
  endLine: number;
  /** Index into the same `symbols` array of the enclosing symbol, or null at top level. */
  parent: number | null;
  /** Exported / public at module level (TS/JS `export`, Go capitalised, Python not starting with `_`). */
  isExported: boolean;
}

/** How a name is used. */
export type ReferenceKind = 'call' | 'attribute_call' | 'import' | 'inherit' | 'name';

/** A use of a name inside a file. */
export interface ExtractedReference {
  /** As written: `foo`, `self.bar`, `os.path.join`, `Base`. */
  name: string;
  kind: ReferenceKind;
  line: number;
  /** Index of the innermost enclosing symbol, or null at module level. */
  fromSymbol: number | null;
}

/** An import statement, unresolved. */
export interface ExtractedImport {
  /**
   * The module as written: Python `os.path` / `pkg.mod` (leading dots are in `level`), TS/JS
   * `./foo` / `@scope/pkg` / `~/x`, Go `"net/http"`, C `"foo.h"`, Java `com.x.Y`, Rust `crate::a::b`.
   */
  specifier: string;
  /** Names imported from it (`from a import b, c` → ['b','c']; `import {x as y}` → ['x']; `*` for star). */
  names: string[];
  /** Local alias when there is one: `import numpy as np` → 'np'. */
  alias: string | null;
  /**
   * The local binding of each entry of `names`, in the same order (`from a import b as c, d` →
   * ['c','d']); absent when the language has no per-name aliases.
   */
  localNames?: string[];
  /** Python relative import level (number of leading dots), 0 otherwise. */
  level: number;
  /** `export ... from` in TS/JS (a re-export edge). */
  isReexport: boolean;
  /** C/C++ `#include <...>` (system) vs `"..."`. */
  isSystem: boolean;
  /** Rust `mod x;`: a module file of the crate (specifier 'x'), not a `use` path. */
  isModule?: boolean;
  line: number;
}

/** Tags of rationale comments. */
export type RationaleTag = 'TODO' | 'FIXME' | 'HACK' | 'NOTE' | 'WHY' | 'XXX' | 'BECAUSE';

/** A comment that explains intent or debt. */
export interface ExtractedRationale {
  tag: RationaleTag;
  text: string;
  line: number;
  /** Index of the innermost enclosing symbol, or null. */
  fromSymbol: number | null;
}

/** Everything extracted from one file. */
export interface FileExtraction {
  language: ParsedLanguage;
  symbols: ExtractedSymbol[];
  references: ExtractedReference[];
  imports: ExtractedImport[];
  rationale: ExtractedRationale[];
  /** The module docstring / file header comment, when there is one. */
  moduleDoc: string | null;
  /** tree-sitter reported ERROR/MISSING nodes; what it recovered is still returned. */
  hasSyntaxErrors: boolean;
}
