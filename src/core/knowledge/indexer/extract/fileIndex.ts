/**
 * The repository's file list as import resolution sees it, and path helpers shared by the
 * per-language resolvers (resolvePython.ts, resolveScript.ts, resolveOther.ts) and resolve.ts,
 * which dispatches to them.
 */

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
