/**
 * The isolated workspace of a solve run: a detached git worktree of ours at the user's HEAD
 * (optionally with their uncommitted changes committed first there), one commit per completed step,
 * and a failed attempt undone. The user's working tree and index are only read (`git status`,
 * `git diff`, file reads); every write goes to the worktree and its own index.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from '../../../shared/contract';
import { confinePath } from '../../platform/fs/confine';
import { gitText, runGit, Worktree } from '../../platform/git';
import { byteSafeDiff } from './byteSafeDiff';

/** Commits in our worktree carry this identity (the user's git config is not read). */
const IDENTITY = { GIT_AUTHOR_NAME: 'Clean Room', GIT_AUTHOR_EMAIL: 'cra@localhost', GIT_COMMITTER_NAME: 'Clean Room', GIT_COMMITTER_EMAIL: 'cra@localhost' };

/** sha256 of a file's bytes (hex). */
export function contentHash(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The user's repository at the start of a run: HEAD and the hashes of the files that differ from it. */
export interface RunBase {
  commit: string;
  /** Files dirty at the start (modified, added, untracked, deleted): their content hash then; null when deleted. */
  dirty: Record<string, string | null>;
}

/** Paths `git status` reports as differing from HEAD (untracked included, ignored not). */
async function dirtyPaths(repo: string, signal?: AbortSignal): Promise<string[]> {
  const out = await gitText(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'], { cwd: repo, signal });
  return out
    .split('\0')
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
}

/** Read the user's repository state (no write): HEAD and the content hashes of its dirty files. */
export async function readRunBase(repo: string, signal?: AbortSignal): Promise<RunBase> {
  const commit = (await gitText(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd: repo, signal }).catch(() => '')).trim();
  if (!commit) throw new AppError('VALIDATION', `${repo} has no commit yet; commit once, then solve.`);
  const dirty: Record<string, string | null> = {};
  for (const path of await dirtyPaths(repo, signal)) {
    try {
      const file = confinePath(repo, path);
      dirty[path] = lstatSync(file.absolute).isFile() ? contentHash(readFileSync(file.absolute)) : null;
    } catch {
      dirty[path] = null;
    }
  }
  return { commit, dirty };
}

/** A solve run's worktree. */
export class SolveWorkspace {
  /** The cumulative diff as of the last commit (passes read it several times between commits). */
  private diffCache: string | undefined;

  private constructor(
    readonly worktree: Worktree,
    /** The commit the run's diffs are against (HEAD, or the snapshot of uncommitted changes on it). */
    readonly startCommit: string,
  ) {}

  /** The checkout. */
  get path(): string {
    return this.worktree.path;
  }

  /**
   * A new worktree at `base.commit`; with `includeUncommitted`, the user's tracked changes and
   * untracked files are copied in and committed there first (read from the user's tree, never written).
   */
  static async create(options: { repo: string; root: string; base: RunBase; includeUncommitted: boolean; signal?: AbortSignal }): Promise<SolveWorkspace> {
    const worktree = await Worktree.create({ repo: options.repo, commit: options.base.commit, root: options.root, label: 'solve', signal: options.signal });
    try {
      if (!options.includeUncommitted || Object.keys(options.base.dirty).length === 0) return new SolveWorkspace(worktree, options.base.commit);
      for (const path of Object.keys(options.base.dirty)) {
        const target = join(worktree.path, path);
        let source;
        try {
          source = confinePath(options.repo, path);
        } catch {
          source = null;
        }
        if (source && lstatSync(source.absolute).isFile()) {
          // Confined on our side too: a path of the user's tree cannot lead out of the worktree.
          confinePath(worktree.path, path, { allowMissing: true });
          mkdirSync(dirname(target), { recursive: true });
          copyFileSync(source.absolute, target);
        } else {
          // Deleted in the user's tree: deleted in the snapshot too (the path confined to our checkout first).
          confinePath(worktree.path, path, { allowMissing: true });
          await gitText(['rm', '-q', '-f', '--ignore-unmatch', '--', path], { cwd: worktree.path });
        }
      }
      const snapshot = await commitAll(worktree.path, 'Uncommitted changes at the start of the solve run', options.signal);
      worktree.keep(); // the snapshot outlives the checkout: resume and review read it
      return new SolveWorkspace(worktree, snapshot);
    } catch (error) {
      await worktree.remove();
      throw error;
    }
  }

  /**
   * A worktree for a resumed run: at the run's start commit with its cumulative diff applied and
   * committed. A start commit git no longer has, or a diff that does not apply, is a clear failure.
   */
  static async resume(options: { repo: string; root: string; startCommit: string; cumulativeDiff: string; signal?: AbortSignal }): Promise<SolveWorkspace> {
    const worktree = await Worktree.create({ repo: options.repo, commit: options.startCommit, root: options.root, label: 'solve', signal: options.signal }).catch((error: unknown) => {
      throw new AppError('NOT_FOUND', `The run's start commit ${options.startCommit.slice(0, 12)} is no longer in the repository; the run cannot be resumed.`, { cause: error });
    });
    try {
      if (options.cumulativeDiff.trim()) {
        await runGit(['apply', '--index', '--binary', '-'], { cwd: worktree.path, input: options.cumulativeDiff, signal: options.signal }).catch((error: unknown) => {
          throw new AppError('INTERNAL', `The run's completed steps could not be replayed in a fresh worktree: ${(error as Error).message}`, { cause: error });
        });
        await commitAll(worktree.path, 'Completed steps (resumed run)', options.signal);
      }
      return new SolveWorkspace(worktree, options.startCommit);
    } catch (error) {
      await worktree.remove();
      throw error;
    }
  }

  /** Commit the staged step (apply.ts stages its files in the worktree's own index); returns the commit. */
  async commitStep(message: string, signal?: AbortSignal): Promise<void> {
    this.diffCache = undefined;
    await gitText(['-c', 'commit.gpgsign=false', 'commit', '-q', '--allow-empty', '--no-verify', '-m', message], { cwd: this.path, signal, env: IDENTITY });
  }

  /** Undo an attempt's uncommitted changes (files written, files a test command left behind are kept only when ignored). */
  async reset(signal?: AbortSignal): Promise<void> {
    await gitText(['reset', '-q', '--hard', 'HEAD'], { cwd: this.path, signal });
    await gitText(['clean', '-fdq'], { cwd: this.path, signal });
  }

  /** The diff of everything committed since the start commit (read once per commit); byte-exact (non-UTF-8 files as binary patches). */
  async cumulativeDiff(signal?: AbortSignal): Promise<string> {
    this.diffCache ??= await byteSafeDiff(this.path, this.startCommit, 'HEAD', signal);
    return this.diffCache;
  }

  /** Remove the worktree (diffs live in the raw DB and the session). */
  remove(): Promise<void> {
    return this.worktree.remove();
  }
}

/** Commit (staging every non-ignored change first when `stageAll`); no hook of the user's repository runs. */
async function commitAll(cwd: string, message: string, signal?: AbortSignal, stageAll = true): Promise<string> {
  if (stageAll) await gitText(['add', '-A', '--', '.'], { cwd, signal });
  await gitText(['-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '--allow-empty', '--no-verify', '-m', message], { cwd, signal, env: IDENTITY });
  return (await gitText(['rev-parse', 'HEAD'], { cwd, signal })).trim();
}
