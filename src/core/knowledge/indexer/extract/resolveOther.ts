import { dirOf, joinPath, type FileIndex } from './fileIndex';
import type { ExtractedImport } from './types';

const goModules = new WeakMap<FileIndex, Array<{ dir: string; module: string }>>();

function unquote(spec: string): string {
  return spec.replace(/^["'<`]|["'>`]$/g, '');
}

/** Every go.mod in the repository with its module path, longest module path first. */
function goModulesOf(index: FileIndex): Array<{ dir: string; module: string }> {
  let list = goModules.get(index);
  if (!list) {
    list = [];
    for (const file of index.files) {
      if (file !== 'go.mod' && !file.endsWith('/go.mod')) continue;
      const match = /^\s*module\s+("?)([^\s"]+)\1/m.exec(index.readFile(file) ?? '');
      if (match) list.push({ dir: dirOf(file), module: match[2]! });
    }
    list.sort((a, b) => b.module.length - a.module.length);
    goModules.set(index, list);
  }
  return list;
}

/** Go: the module path from go.mod → the package directory → its non-test .go files. */
export function resolveGo(index: FileIndex, imp: ExtractedImport): string[] {
  const spec = unquote(imp.specifier);
  for (const { dir, module } of goModulesOf(index)) {
    if (spec !== module && !spec.startsWith(`${module}/`)) continue;
    const pkgDir = joinPath(dir, spec.slice(module.length));
    if (pkgDir === null) return [];
    return index.filesIn(pkgDir).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'));
  }
  return [];
}

/** C/C++: quoted includes relative to the including file, then a unique match by path suffix. */
export function resolveC(index: FileIndex, fromPath: string, imp: ExtractedImport): string[] {
  const spec = unquote(imp.specifier);
  if (!imp.isSystem) {
    const local = joinPath(dirOf(fromPath), spec);
    if (local !== null && index.has(local)) return [local];
  } else if (!spec.includes('/')) {
    return [];
  }
  const matches = index.withSuffix(spec.replace(/^(\.\.?\/)+/, ''));
  return matches.length === 1 ? matches : [];
}

/** Java: `com.x.Y` → the file ending in `com/x/Y.java` (static members and `*` handled). */
export function resolveJava(index: FileIndex, imp: ExtractedImport): string[] {
  const parts = imp.specifier.split('.');
  if (imp.names.includes('*')) {
    const pkgPath = parts.join('/');
    const dirs = new Set<string>();
    for (const file of index.files) {
      const dir = dirOf(file);
      if (file.endsWith('.java') && (dir === pkgPath || dir.endsWith(`/${pkgPath}`))) dirs.add(dir);
    }
    return dirs.size === 1 ? index.filesIn([...dirs][0]!).filter((f) => f.endsWith('.java')) : [];
  }
  for (let n = parts.length; n > 0; n--) {
    const matches = index.withSuffix(`${parts.slice(0, n).join('/')}.java`);
    if (matches.length === 1) return matches;
    if (matches.length > 1) return [];
  }
  return [];
}

/** The crate's `src` folder for a file: the nearest ancestor with Cargo.toml, else the nearest `src`. */
function crateSrc(index: FileIndex, fromPath: string): string {
  for (let dir = dirOf(fromPath); ; dir = dirOf(dir)) {
    if (index.has(dir ? `${dir}/Cargo.toml` : 'Cargo.toml')) return dir ? `${dir}/src` : 'src';
    if (dir === 'src' || dir.endsWith('/src')) return dir;
    if (!dir) return 'src';
  }
}

/** The module file for `parts` under `base` (`a/b.rs`, `a/b/mod.rs`), dropping trailing item names. */
function rustModuleFile(index: FileIndex, base: string, parts: readonly string[]): string | null {
  for (let n = parts.length; n > 0; n--) {
    const path = joinPath(base, ...parts.slice(0, n));
    if (path === null) return null;
    if (index.has(`${path}.rs`)) return `${path}.rs`;
    if (index.has(`${path}/mod.rs`)) return `${path}/mod.rs`;
  }
  return null;
}

/** The directory holding the submodules of the module that `fromPath` is. */
function rustModuleDir(fromPath: string): string {
  const base = fromPath.slice(fromPath.lastIndexOf('/') + 1);
  const dir = dirOf(fromPath);
  if (base === 'mod.rs' || base === 'lib.rs' || base === 'main.rs') return dir;
  return joinPath(dir, base.replace(/\.rs$/, '')) ?? dir;
}

/** Rust: `mod x;` → `x.rs` / `x/mod.rs` beside the file; `crate::`, `self::`, `super::` paths. */
export function resolveRust(index: FileIndex, fromPath: string, imp: ExtractedImport): string[] {
  const parts = imp.specifier.split('::').filter((p) => p && p !== '{' && !p.startsWith('{'));
  if (imp.isModule) {
    const name = parts[0] ?? '';
    const found = rustModuleFile(index, rustModuleDir(fromPath), [name]) ?? rustModuleFile(index, dirOf(fromPath), [name]);
    return found ? [found] : [];
  }
  let base: string;
  if (parts[0] === 'crate') base = crateSrc(index, fromPath);
  else if (parts[0] === 'self') base = rustModuleDir(fromPath);
  else if (parts[0] === 'super') base = dirOf(rustModuleDir(fromPath));
  else return [];
  let rest = parts.slice(1);
  while (rest[0] === 'super') {
    base = dirOf(base);
    rest = rest.slice(1);
  }
  const found = rest.length > 0 ? rustModuleFile(index, base, rest) : null;
  return found ? [found] : [];
}

/** C#: namespaces do not map to files; only a unique `A/B/C.cs` match by suffix counts. */
export function resolveCSharp(index: FileIndex, imp: ExtractedImport): string[] {
  const matches = index.withSuffix(`${imp.specifier.split('.').join('/')}.cs`);
  return matches.length === 1 ? matches : [];
}
