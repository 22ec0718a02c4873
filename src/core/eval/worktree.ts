import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from './git';

/**
 * One detached git worktree outside the user's repository, moved from commit to commit as the
 * evaluation walks its tasks. The user's working tree, index and refs are never touched: a
 * detached worktree creates no branch, and its bookkeeping under .git/worktrees is removed again
 * by `remove()`, which callers run in a `finally`.
 */
export class EvalWorktree {
  private constructor(
    /** The user's repository. */
    readonly repo: string,
    /** The worktree folder (inside a fresh temporary folder). */
    readonly path: string,
    private readonly tempRoot: string,
    private current: string,
  ) {}

  /** Add a detached worktree at `sha` in a new temporary folder. */
  static async create(repo: string, sha: string, signal?: AbortSignal): Promise<EvalWorktree> {
    const tempRoot = mkdtempSync(join(tmpdir(), 'cra-eval-'));
    const path = join(tempRoot, 'worktree');
    // Stale entries of earlier runs that were killed before cleaning up.
    await git(['worktree', 'prune'], { cwd: repo }).catch(() => undefined);
    try {
      await git(['worktree', 'add', '--detach', '--force', path, sha], { cwd: repo, signal });
    } catch (error) {
      rmSync(tempRoot, { recursive: true, force: true });
      throw error;
    }
    return new EvalWorktree(repo, path, tempRoot, sha);
  }

  /** The commit checked out now. */
  get head(): string {
    return this.current;
  }

  /** Move the worktree to another commit (only files that differ are rewritten by git). */
  async checkout(sha: string, signal?: AbortSignal): Promise<void> {
    if (sha === this.current) return;
    await git(['checkout', '--detach', '--force', '-q', sha], { cwd: this.path, signal });
    await git(['clean', '-fdxq'], { cwd: this.path, signal });
    this.current = sha;
  }

  /** Remove the worktree, its git bookkeeping and the temporary folder; safe to call twice. */
  async remove(): Promise<void> {
    await git(['worktree', 'remove', '--force', '--force', this.path], { cwd: this.repo }).catch(() => undefined);
    rmSync(this.tempRoot, { recursive: true, force: true });
    await git(['worktree', 'prune'], { cwd: this.repo }).catch(() => undefined);
  }
}
