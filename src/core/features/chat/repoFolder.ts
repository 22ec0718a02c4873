import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/** A folder a repository keeps for us, or why it is not read. */
export interface RepoFolder {
  /** The folder's path, when it is a real folder inside the repository. */
  dir?: string;
  /** Why it is not read (a link, or outside the repository): said once, as a problem. */
  problem?: { file: string; message: string };
}

/**
 * A folder of the repository that we read (`.cleanroom/pipelines`), only when every part of its
 * path is a real folder, not a symbolic link, and it resolves inside the repository: a linked
 * `.cleanroom` pointing out of the repository listed file names from outside it. Absent: no `dir`
 * and no problem. `what` names the contents in the problem ("pipelines").
 */
export function repoFolder(repoRoot: string, folder: string, what: string): RepoFolder {
  let at = repoRoot;
  for (const name of folder.split('/')) {
    at = join(at, name);
    const stat = lstatSync(at, { throwIfNoEntry: false });
    const shown = relative(repoRoot, at).split(sep).join('/');
    if (stat?.isSymbolicLink()) {
      return { problem: { file: shown, message: `${shown} is a symbolic link; the repository's own ${what} are read only from a real folder inside it, so none were read. Replace the link with a folder.` } };
    }
    if (!stat?.isDirectory()) return {};
  }
  const inside = relative(realpathSync(repoRoot), realpathSync(at));
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return { problem: { file: folder, message: `${folder} lies outside the repository; none of its ${what} were read.` } };
  return { dir: at };
}
