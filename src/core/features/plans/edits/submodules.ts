/**
 * Edits never reach into a repository inside the checkout: a submodule (a gitlink in the commit)
 * or a folder with a `.git` of its own. git refuses to stage such a path ("is in submodule"), which
 * used to end a whole solve run as interrupted; the attempt is refused with the reason instead,
 * like any edit that does not apply, and the run goes on.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gitText } from '../../../platform/git';

/** The folders above a path and the path itself: `a/b/c` → a, a/b, a/b/c. */
function prefixes(path: string): string[] {
  const parts = path.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * Why an edit of one of `paths` (relative, `/`-separated, confined to `checkout`) is refused: the
 * first path inside a submodule or a nested repository, named with it; undefined when none is.
 */
export async function nestedRepositoryProblem(checkout: string, paths: readonly string[], signal?: AbortSignal): Promise<string | undefined> {
  const candidates = [...new Set(paths.flatMap(prefixes))];
  if (candidates.length === 0) return undefined;
  // Without -r, ls-tree lists the entries at these paths (a gitlink cannot be descended into).
  const listed = await gitText(['--literal-pathspecs', 'ls-tree', '-z', 'HEAD', '--', ...candidates], { cwd: checkout, signal });
  const gitlinks = new Set(
    listed
      .split('\0')
      .filter((entry) => entry.startsWith('160000 '))
      .map((entry) => entry.slice(entry.indexOf('\t') + 1)),
  );
  for (const path of paths) {
    const inside = prefixes(path).find((prefix) => gitlinks.has(prefix));
    if (inside) return `${path} is inside the submodule ${inside} (a repository of its own): edits inside a submodule are refused; change this repository's own files`;
    const nested = prefixes(path).slice(0, -1).find((prefix) => existsSync(join(checkout, prefix, '.git')));
    if (nested) return `${path} is inside ${nested}, a git repository of its own: edits there are refused; change this repository's own files`;
  }
  return undefined;
}
