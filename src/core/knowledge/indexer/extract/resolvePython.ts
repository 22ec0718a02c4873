import { dirOf, joinPath, type FileIndex } from './fileIndex';
import type { ExtractedImport } from './types';

const COMMON_ROOTS = ['src', 'lib', 'python'];

/**
 * Source roots: the repository root, `src/`, `lib/`, and every directory that holds a top-level
 * package (a folder with `__init__.py` whose parent has none).
 */
function detectRoots(index: FileIndex): string[] {
  const roots = new Set<string>(['']);
  for (const root of COMMON_ROOTS) if (index.isDir(root) || [...index.files].some((f) => f.startsWith(`${root}/`))) roots.add(root);
  for (const file of index.files) {
    if (!file.endsWith('/__init__.py')) continue;
    const pkg = dirOf(file);
    const parent = dirOf(pkg);
    if (!index.has(parent ? `${parent}/__init__.py` : '__init__.py')) roots.add(parent);
  }
  return [...roots].sort((a, b) => a.length - b.length);
}

/** The module file for dotted `parts` under `base`: `a/b.py`, `a/b/__init__.py` (or .pyi). */
function moduleFile(index: FileIndex, base: string, parts: readonly string[]): string | null {
  const path = joinPath(base, ...parts);
  if (path === null) return null;
  for (const candidate of path ? [`${path}.py`, `${path}/__init__.py`, `${path}.pyi`, `${path}/__init__.pyi`] : ['__init__.py']) {
    if (index.has(candidate)) return candidate;
  }
  return null;
}

/** The package directory for `parts` under `base`, when it exists as a folder of files. */
function packageDir(index: FileIndex, base: string, parts: readonly string[]): string | null {
  const path = joinPath(base, ...parts);
  return path !== null && (path === '' || index.isDir(path)) ? path : null;
}

/** `from X import a, b`: each name that is a submodule resolves to it, the rest to X itself. */
function resolveFrom(index: FileIndex, base: string, parts: string[], names: readonly string[]): string[] {
  const out = new Set<string>();
  const dir = packageDir(index, base, parts);
  let needsModule = names.length === 0;
  for (const name of names) {
    const sub = name !== '*' && dir !== null ? moduleFile(index, dir, [name]) : null;
    if (sub) out.add(sub);
    else needsModule = true;
  }
  if (needsModule) {
    const mod = moduleFile(index, base, parts);
    if (mod) out.add(mod);
  }
  return [...out];
}

/** Python: absolute imports against the detected source roots, relative imports by level. */
export function createPythonResolver(index: FileIndex): (fromPath: string, imp: ExtractedImport) => string[] {
  let roots: string[] | null = null;
  return (fromPath, imp) => {
    const parts = imp.specifier ? imp.specifier.split('.') : [];
    if (imp.level > 0) {
      const up = Array<string>(imp.level - 1).fill('..');
      const base = joinPath(dirOf(fromPath), ...up);
      return base === null ? [] : resolveFrom(index, base, parts, imp.names);
    }
    if (parts.length === 0) return [];
    roots ??= detectRoots(index);
    const scriptDir = dirOf(fromPath);
    for (const root of [...roots, ...(roots.includes(scriptDir) ? [] : [scriptDir])]) {
      if (moduleFile(index, root, parts) === null && packageDir(index, root, parts) === null) continue;
      const found = resolveFrom(index, root, parts, imp.names);
      if (found.length > 0) return found;
    }
    return [];
  };
}
