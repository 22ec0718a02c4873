import { FileIndex } from './fileIndex';
import { resolveGo, resolveC, resolveJava, resolveRust, resolveCSharp } from './resolveOther';
import { createPythonResolver } from './resolvePython';
import { createScriptResolver } from './resolveScript';
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
