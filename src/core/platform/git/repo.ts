import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError } from '../../../shared/contract';
import { GitError, gitText } from './run';

/** True when `dir` is inside a git work tree (and git is installed). */
export async function isGitWorkTree(dir: string): Promise<boolean> {
  try {
    return (await gitText(['rev-parse', '--is-inside-work-tree'], { cwd: dir })).trim() === 'true';
  } catch {
    return false;
  }
}

/** The commit HEAD points at, or null in a repository without commits (or outside git). */
export async function gitHead(dir: string): Promise<string | null> {
  return (await resolveCommit(dir, 'HEAD')) ?? null;
}

/** The full sha a revision names, or undefined when it names nothing. */
export async function resolveCommit(repo: string, rev: string): Promise<string | undefined> {
  try {
    return (await gitText(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { cwd: repo })).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** True when `ancestor` is an ancestor of (or equal to) `head`. */
export async function isAncestor(dir: string, ancestor: string, head: string): Promise<boolean> {
  try {
    await gitText(['merge-base', '--is-ancestor', ancestor, head], { cwd: dir });
    return true;
  } catch {
    return false;
  }
}

/**
 * The top folder of the git repository at `path`. Throws NOT_FOUND when the folder is missing,
 * VALIDATION when it is not inside a git repository, and UNSUPPORTED when git is not installed.
 */
export async function repositoryRoot(path: string): Promise<string> {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new AppError('NOT_FOUND', `No folder at ${absolute}; give the path of a git repository.`);
  try {
    return (await gitText(['rev-parse', '--show-toplevel'], { cwd: absolute })).trim();
  } catch (error) {
    if (error instanceof GitError && error.failure === 'missing') throw error;
    throw new AppError('VALIDATION', `${absolute} is not a git repository; give the path of a folder with a .git.`, { cause: error });
  }
}
