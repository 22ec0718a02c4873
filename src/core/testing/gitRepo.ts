import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runGitSync } from '../platform/git';

/**
 * Test support: the one builder of throwaway git repositories. Every git command goes through the
 * engine's runner (core/git), so fixtures are made with the environment the engine reads them with:
 * no user or system config, no GIT_* variables of the parent. Commits have a fixed author and
 * date, so shas and `git log` order are reproducible.
 */

/** Who commits in a fixture. */
export interface TestAuthor {
  name: string;
  email: string;
}

/** How to make a fixture repository. */
export interface TestRepoOptions {
  /** false: a plain folder, no `git init` (default true). */
  git?: boolean;
  /** Build in this folder (emptied first) instead of a new temporary one. */
  dir?: string;
  /** The work tree's folder name inside the temporary folder (default `repo`). */
  name?: string;
  /** Prefix of the temporary folder (default `cra-repo-`). */
  prefix?: string;
  /** Author and committer (default Test Author <author@example.com>). */
  author?: TestAuthor;
}

/** A throwaway git repository for one test. */
export interface TestRepo {
  /** Absolute path of the work tree. */
  root: string;
  /** Write a file (folders made as needed). */
  write(path: string, content: string | Buffer): void;
  /** Write several files. */
  writeFiles(files: Record<string, string>): void;
  remove(path: string): void;
  /**
   * Stage everything and commit (empty commits allowed); `when` is a day of January 2024 or an ISO
   * date (default: the next day of a counter). Returns the new commit's sha.
   */
  commit(message: string, when?: number | string): string;
  /** Create a branch at HEAD and switch to it. */
  branch(name: string): void;
  /** Switch to an existing branch. */
  checkout(name: string): void;
  /** Merge `branch` into the current one with a merge commit dated `when`; returns its sha. */
  merge(branch: string, message: string, when?: number | string): string;
  /** Run any git command in the work tree (author and committer set); returns stdout. */
  git(...args: string[]): string;
  /** Delete the repository and its temporary folder. */
  cleanup(): void;
}

const DEFAULT_AUTHOR: TestAuthor = { name: 'Test Author', email: 'author@example.com' };
let counter = 0;

/** Create a repository (`git init -b main`, no commits yet) in a temporary folder or in `options.dir`. */
export function createTestRepo(options: TestRepoOptions = {}): TestRepo {
  let base: string;
  let root: string;
  if (options.dir) {
    rmSync(options.dir, { recursive: true, force: true });
    mkdirSync(options.dir, { recursive: true });
    base = root = options.dir;
  } else {
    base = mkdtempSync(join(tmpdir(), options.prefix ?? 'cra-repo-'));
    root = join(base, options.name ?? 'repo');
    mkdirSync(root);
  }
  const author = options.author ?? DEFAULT_AUTHOR;
  const run = (args: string[], when: number | string = 1) => runGitSync(args, { cwd: root, env: identity(author, when) });
  const head = () => run(['rev-parse', 'HEAD']).trim();
  const write = (path: string, content: string | Buffer) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  if (options.git !== false) run(['init', '-q', '-b', 'main']);
  return {
    root,
    write,
    writeFiles(files) {
      for (const [path, content] of Object.entries(files)) write(path, content);
    },
    remove(path) {
      rmSync(join(root, path), { force: true });
    },
    commit(message, when = ++counter % 28 || 1) {
      run(['add', '-A'], when);
      run(['commit', '-q', '--allow-empty', '-m', message], when);
      return head();
    },
    branch(name) {
      run(['checkout', '-q', '-b', name]);
    },
    checkout(name) {
      run(['checkout', '-q', name]);
    },
    merge(branch, message, when = ++counter % 28 || 1) {
      run(['merge', '-q', '--no-ff', '-m', message, branch], when);
      return head();
    },
    git: (...args) => run(args),
    cleanup() {
      rmSync(base, { recursive: true, force: true });
    },
  };
}

function identity(author: TestAuthor, when: number | string): Record<string, string> {
  const date = typeof when === 'number' ? `2024-01-${String(when).padStart(2, '0')}T12:00:00Z` : when;
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  };
}
