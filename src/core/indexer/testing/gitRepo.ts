import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A throwaway git repository for tests, with commits at fixed authors and dates. */
export interface TestRepo {
  root: string;
  write(path: string, content: string | Buffer): void;
  remove(path: string): void;
  /** Stage everything and commit with a fixed author; `day` picks the date (2024-01-<day>). */
  commit(message: string, day?: number): void;
  git(...args: string[]): string;
  cleanup(): void;
}

let counter = 0;

/** Create a repository in a temp folder (`git init`, no commits yet unless `files` are committed by the caller). */
export function createTestRepo(options: { git?: boolean } = {}): TestRepo {
  const base = mkdtempSync(join(tmpdir(), 'cra-repo-'));
  const root = join(base, 'repo');
  mkdirSync(root);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...identity(1) } });
  if (options.git !== false) git('init', '-q', '-b', 'main');
  return {
    root,
    git,
    write(path, content) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    },
    remove(path) {
      rmSync(join(root, path), { force: true });
    },
    commit(message, day = ++counter % 28 || 1) {
      execFileSync('git', ['add', '-A'], { cwd: root });
      execFileSync('git', ['commit', '-q', '--allow-empty', '-m', message], { cwd: root, env: { ...process.env, ...identity(day) } });
    },
    cleanup() {
      rmSync(base, { recursive: true, force: true });
    },
  };
}

function identity(day: number): Record<string, string> {
  const date = `2024-01-${String(day).padStart(2, '0')}T12:00:00Z`;
  return {
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'Test Author',
    GIT_COMMITTER_EMAIL: 'author@example.com',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
}
