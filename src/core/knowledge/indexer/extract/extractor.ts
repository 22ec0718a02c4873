import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Language, Node, Query } from 'web-tree-sitter';
import type * as TreeSitter from 'web-tree-sitter';
import { packageRoot } from '../../../platform/paths';
import { ExtractionBuilder } from './builder';
import { SPECS } from './registry';
import { commentsWithHints, type LanguageSpec } from './spec';
import type { FileExtraction, ParsedLanguage } from './types';

/** Parses source files with tree-sitter and extracts symbols, references, imports and rationale. */
export interface Extractor {
  /**
   * Extracts one file. Synchronous; the language must have been loaded (`createExtractor`'s
   * `languages`, `load`, or a previous `extractAsync`), otherwise it throws.
   */
  extract(language: ParsedLanguage, source: string): FileExtraction;
  /** Loads the language's grammar on first use, then extracts. */
  extractAsync(language: ParsedLanguage, source: string): Promise<FileExtraction>;
  /** Loads grammars (each once); cheap for languages already loaded. */
  load(languages: readonly ParsedLanguage[]): Promise<void>;
  /** Whether `extract` can run for this language now. */
  isLoaded(language: ParsedLanguage): boolean;
  /** Frees the parser and the compiled queries. The extractor is unusable afterwards. */
  dispose(): void;
}

/** Options of `createExtractor`. */
export interface ExtractorOptions {
  /** Grammars to load up front (default: none; they load on `load` / `extractAsync`). */
  languages?: readonly ParsedLanguage[];
  /**
   * Folder holding every `tree-sitter-<name>.wasm` (default: each grammar's own package where its
   * spec names one, tree-sitter-wasms' `out/` for the others).
   */
  grammarDir?: string;
}

interface Loaded {
  language: Language;
  query: Query;
  spec: LanguageSpec;
}

let runtimeReady: Promise<void> | undefined;

/** The grammar folder shipped with the tree-sitter-wasms package. */
export function defaultGrammarDir(): string {
  return join(packageRoot(), 'node_modules', 'tree-sitter-wasms', 'out');
}

/** Where a language's grammar file is: in `grammarDir` when given, else its own package's folder or tree-sitter-wasms'. */
export function grammarFile(spec: Pick<LanguageSpec, 'grammar' | 'grammarPackage'>, grammarDir?: string): { file: string; from: string } {
  const name = `tree-sitter-${spec.grammar}.wasm`;
  if (grammarDir !== undefined) return { file: join(grammarDir, name), from: grammarDir };
  if (spec.grammarPackage) return { file: join(packageRoot(), 'node_modules', spec.grammarPackage, name), from: spec.grammarPackage };
  return { file: join(defaultGrammarDir(), name), from: 'tree-sitter-wasms' };
}

/**
 * Creates an extractor. Works in the main thread and inside a `worker_threads` Worker (each
 * thread has its own WASM runtime; nothing is shared beyond this module's runtime init).
 */
export async function createExtractor(options: ExtractorOptions = {}): Promise<Extractor> {
  // The tree-sitter runtime loads with the first extractor, not with every module that imports this
  // one (a search or a chat never parses).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Language, Parser, Query } = require('web-tree-sitter') as typeof TreeSitter;
  runtimeReady ??= Parser.init();
  await runtimeReady;
  const parser = new Parser();
  const loaded = new Map<ParsedLanguage, Loaded>();
  const pending = new Map<ParsedLanguage, Promise<void>>();
  let disposed = false;

  const loadOne = (lang: ParsedLanguage): Promise<void> => {
    if (loaded.has(lang)) return Promise.resolve();
    let p = pending.get(lang);
    if (!p) {
      p = (async () => {
        const spec = SPECS[lang];
        const { file, from } = grammarFile(spec, options.grammarDir);
        if (!existsSync(file)) throw new Error(`Grammar for ${lang} not found at ${file}; reinstall ${from} (npm install)`);
        const language = await Language.load(file);
        loaded.set(lang, { language, query: new Query(language, spec.query), spec });
      })();
      pending.set(lang, p);
    }
    return p;
  };

  const extract = (lang: ParsedLanguage, source: string): FileExtraction => {
    if (disposed) throw new Error('Extractor used after dispose()');
    const entry = loaded.get(lang);
    if (!entry) throw new Error(`Language ${lang} is not loaded; call load(['${lang}']) or extractAsync first`);
    parser.setLanguage(entry.language);
    const tree = parser.parse(source);
    if (!tree) throw new Error(`tree-sitter returned no tree for a ${lang} file`);
    try {
      return runSpec(lang, entry, tree.rootNode, source);
    } finally {
      tree.delete();
    }
  };

  const extractor: Extractor = {
    extract,
    async extractAsync(lang, source) {
      await loadOne(lang);
      return extract(lang, source);
    },
    async load(languages) {
      // One at a time: loading two grammars concurrently (typescript + tsx) breaks the WASM
      // dynamic linker's symbol table ("bad export type for ..._external_scanner_create").
      for (const lang of languages) await loadOne(lang);
    },
    isLoaded: (lang) => loaded.has(lang),
    dispose() {
      if (disposed) return;
      disposed = true;
      for (const entry of loaded.values()) entry.query.delete();
      loaded.clear();
      parser.delete();
    },
  };
  await extractor.load(options.languages ?? []);
  return extractor;
}

/**
 * Runs the language's query and handlers. Candidate rationale comments are found apart from the
 * query and fed to the builder in document order between the captures (each before the first
 * capture that starts after it), so the builder's scope stack gives them their enclosing symbol.
 */
function runSpec(lang: ParsedLanguage, entry: Loaded, root: Node, source: string): FileExtraction {
  const builder = new ExtractionBuilder(lang);
  entry.spec.prepare?.(root, builder);
  const comments = commentsWithHints(root, source);
  let next = 0;
  for (const capture of entry.query.captures(root)) {
    const start = capture.node.startIndex;
    while (next < comments.length && comments[next]!.startIndex < start) builder.addComment(comments[next++]!);
    entry.spec.handle(capture.name, capture.node, builder);
  }
  while (next < comments.length) builder.addComment(comments[next++]!);
  return builder.finish(root.hasError);
}
