/** Result types of the KnowledgeBase (the curated index's query API). Lines are 1-based, inclusive. */

/** A file of the index. */
export interface FileRecord {
  id: number;
  path: string;
  language: string;
  size: number;
  lines: number;
  /** SHA-1 of the content; null for files not read whole (binary, oversize, unreadable). */
  contentHash: string | null;
  isTest: boolean;
  /** Null for indexed files; the reason for files recorded but not parsed. */
  skipReason: string | null;
  hasSyntaxErrors: boolean;
}

/** A symbol definition. */
/**
 * Symbol kinds that are units of function-level localization (a function, a method, a class or a
 * type): what the search lists and follows as callees (search/details.ts) and what `cra eval`
 * ranks and scores (lab/eval/functionLevel.ts). A change in anything else counts as its file's.
 */
export const UNIT_KINDS: ReadonlySet<string> = new Set(['function', 'method', 'class', 'struct', 'enum', 'interface', 'trait']);

export interface SymbolRecord {
  id: number;
  fileId: number;
  path: string;
  name: string;
  qualifiedName: string;
  kind: string;
  signature: string;
  docstring: string | null;
  startLine: number;
  endLine: number;
  parentId: number | null;
  isExported: boolean;
}

/** Which way to follow an edge. */
export type EdgeDirection = 'outgoing' | 'incoming' | 'both';

/** A symbol reached over a `symbol_references` edge. */
export interface SymbolNeighbor {
  direction: 'outgoing' | 'incoming';
  /** call, attribute_call, import, inherit, name. */
  referenceKind: string;
  /** The name as written at the reference. */
  name: string;
  line: number;
  /** The symbol on the other end; null for a module-level caller. */
  symbol: SymbolRecord | null;
  /** Path of the file holding the other end. */
  path: string;
}

/** One resolved import edge seen from a file. */
export interface DependencyEdge {
  direction: 'outgoing' | 'incoming';
  fileId: number;
  path: string;
  /** `import` or `reexport`. */
  kind: string;
  specifier: string;
}

/** Files around a seed set and the import edges between them. */
export interface DependencySubgraph {
  files: FileRecord[];
  edges: Array<{ fromFileId: number; toFileId: number; kind: string }>;
  /** Distance of each file from the seeds (0 = seed). */
  depth: Record<number, number>;
}

/** A file that changed together with another in the git history. */
export interface CoChangeNeighbor {
  fileId: number;
  path: string;
  count: number;
}

/** Docstrings of a file. */
export interface FileDocstrings {
  moduleDoc: string | null;
  symbols: Array<{ symbolId: number; qualifiedName: string; kind: string; docstring: string }>;
}

/** An import statement of a file, as written, and whether it resolved to an indexed file. */
export interface ImportRecord {
  /** The module as written (Python: without the leading dots of a relative import, see `level`). */
  specifier: string;
  /** Names imported from it (`*` for a star import); empty for `import a.b`. */
  names: string[];
  alias: string | null;
  /** Python relative import level (leading dots), 0 otherwise. */
  level: number;
  line: number;
  /** False: no indexed file answers it (a library, the standard library, or a file the index lacks). */
  resolved: boolean;
}

/** A name a symbol's code uses (a call, a base class, a decorator), resolved to a symbol of the index or not. */
export interface SymbolReferenceRecord {
  name: string;
  kind: string;
  line: number;
  resolved: boolean;
}

/** A rationale comment (TODO, FIXME, HACK, NOTE, WHY, XXX, BECAUSE). */
export interface RationaleRecord {
  tag: string;
  text: string;
  line: number;
  symbolId: number | null;
  symbolName: string | null;
}

/** A commit. */
export interface CommitRecord {
  sha: string;
  author: string;
  email: string | null;
  date: string;
  message: string;
}

/** Metadata of a file from enrichment. */
export interface FileMetadataRecord {
  fileId: number;
  path: string;
  domain: string | null;
  module: string | null;
  concepts: string[];
  summary: string | null;
}

/** Everything the pipeline wants to know about one file. */
export interface FileContext {
  file: FileRecord;
  symbols: SymbolRecord[];
  docstrings: FileDocstrings;
  rationale: RationaleRecord[];
  dependencies: DependencyEdge[];
  coChanges: CoChangeNeighbor[];
  commits: CommitRecord[];
  tests: Array<{ fileId: number; path: string; kind: string }>;
}

/** Counts and hot spots of the whole index. */
export interface RepoOverview {
  files: number;
  skippedFiles: number;
  testFiles: number;
  symbols: number;
  references: number;
  resolvedReferences: number;
  dependencies: number;
  commits: number;
  languages: Record<string, number>;
  /** Files per enrichment domain; empty before enrichment. */
  domains: Record<string, number>;
  /** Files with the most import edges (both directions). */
  mostConnected: Array<{ fileId: number; path: string; imports: number; importedBy: number }>;
  lastCommitDate: string | null;
}

/** The model adapter assigned to a pipeline stage (none exist yet). */
export interface StageAdapter {
  stage: string;
  name: string;
  baseModel: string;
  path: string;
}
