import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError } from '../../shared/contract';

/** How to run one git command. */
export interface GitOptions {
  /** Repository or worktree folder the command runs in (`git -C`). */
  cwd: string;
  signal?: AbortSignal;
}

/**
 * Run git with arguments (never through a shell) and return its stdout. A failing command throws
 * a plain Error carrying git's stderr; callers turn the expected ones into AppErrors.
 */
export function git(args: string[], options: GitOptions): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      'git',
      ['-C', options.cwd, '-c', 'core.quotePath=false', ...args],
      { maxBuffer: 512 * 1024 * 1024, signal: options.signal, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } },
      (error, stdout, stderr) => {
        if (error) {
          if (options.signal?.aborted) reject(new AppError('CANCELLED', 'Cancelled.'));
          else reject(new Error(`git ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
          return;
        }
        resolvePromise(stdout);
      },
    );
  });
}

/**
 * The top folder of the git repository at `path`. Throws NOT_FOUND when the folder is missing and
 * VALIDATION when it is not inside a git repository.
 */
export async function repositoryRoot(path: string): Promise<string> {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new AppError('NOT_FOUND', `No folder at ${absolute}; give the path of a git repository.`);
  try {
    return (await git(['rev-parse', '--show-toplevel'], { cwd: absolute })).trim();
  } catch (error) {
    throw new AppError('VALIDATION', `${absolute} is not a git repository; give the path of a folder with a .git.`, { cause: error });
  }
}

/** The full sha a revision names, or undefined when it names nothing. */
export async function resolveCommit(repo: string, rev: string): Promise<string | undefined> {
  try {
    return (await git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { cwd: repo })).trim() || undefined;
  } catch {
    return undefined;
  }
}
