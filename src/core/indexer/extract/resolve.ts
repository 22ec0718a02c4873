import { resolveGo, resolveC, resolveJava, resolveRust, resolveCSharp } from './resolve-other';
import { createPythonResolver } from './resolve-python';
import { createScriptResolver } from './resolve-script';
import type { ExtractedImport, ParsedLanguage } from './types';

/** What import resolution knows about the repository. */
export interface ImportResolverInput {
  /** Every repository file, repo-relative with `/` separators. */
  files: readonly string[];
  /** Reads a repository file (tsconfig.json, go.mod); null when it cannot be read. */
  readFile(path: string): string | null;
}

/** Maps an import to the repository files it names. */
export interface ImportResolver {
  /** Repo-relative paths of the files `imp` (found in `fromPath`) refers to; [] when external or unknown. */
  resolve(fromPath: string, imp: ExtractedImport, language: ParsedLanguage): string[];
}

/** The repository's files with the lookups every language needs. */
export class FileIndex {
  readonly files: ReadonlySet<string>;
  private readonly byDir = new Map<string, string[]>();
  private readonly byBase = new Map<string, string[]>();

  constructor(
    list: readonly string[],
    readonly readFile: (path: string) => string | null,
  ) {
    this.files = new Set(list);
    for (const file of list) {
      push(this.byDir, dirOf(file), file);
      push(this.byBase, file.slice(file.lastIndexOf('/') + 1), file);
    }
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  /** Files directly inside `dir` ('' is the root). */
  filesIn(dir: string): readonly string[] {
    return this.byDir.get(dir) ?? [];
  }

  /** Whether any file lies directly in `dir`. */
  isDir(dir: string): boolean {
    return this.byDir.has(dir);
  }

  /** Files whose path ends with `/suffix` or equals it. */
  withSuffix(suffix: string): string[] {
    const base = suffix.slice(suffix.lastIndexOf('/') + 1);
    return (this.byBase.get(base) ?? []).filter((f) => f === suffix || f.endsWith(`/${suffix}`));
  }
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The directory part of a repo-relative path ('' at the root). */
export function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** Joins and normalises repo-relative segments; null when the result escapes the root. */
export function joinPath(...parts: string[]): string | null {
  const out: string[] = [];
  for (const part of parts.join('/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else {
      out.push(part);
    }
  }
  return out.join('/');
}

/** Creates a resolver over a fixed file list. Pure: it reads only through `input.readFile`. */
export function createImportResolver(input: ImportResolverInput): ImportResolver {
  const index = new FileIndex(input.files, input.readFile);
  const python = createPythonResolver(index);
  const script = createScriptResolver(index);
  return {
    resolve(fromPath, imp, language) {
      switch (language) {
        case 'python':
          return python(fromPath, imp);
        case 'typescript':
        case 'tsx':
        case 'javascript':
          return script(fromPath, imp);
        case 'go':
          return resolveGo(index, imp);
        case 'c':
        case 'cpp':
          return resolveC(index, fromPath, imp);
        case 'java':
          return resolveJava(index, imp);
        case 'rust':
          return resolveRust(index, fromPath, imp);
        case 'csharp':
          return resolveCSharp(index, imp);
      }
    },
  };
}
