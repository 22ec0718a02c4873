import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { AppError } from '../../shared/contract';
import { gitText } from './run';

/** Where our worktrees live: `<dataDir>/worktrees/<label>-<random>/{owner.json,tree}`. */
export function worktreesDir(dataDir: string): string {
  return join(dataDir, 'worktrees');
}

/** The marker beside each checkout: who made it, for which repository. */
const MARKER = 'owner.json';
/** This process, told apart from an earlier one that had the same pid (pid 1 in a container). */
const INSTANCE = randomUUID();
/** A folder without a marker younger than this may be one another process is just making. */
const UNMARKED_GRACE_MS = 60_000;

/** What owner.json records. */
interface Owner {
  pid: number;
  instance: string;
  host: string;
  repo: string;
  commit: string;
  label: string;
  createdAt: string;
}

/** Everything needed to add a worktree. */
export interface CreateWorktreeOptions {
  /** The user's repository (only read: a detached worktree makes no branch). */
  repo: string;
  /** The commit (or any revision) to check out. */
  commit: string;
  /** The folder holding our worktrees (`worktreesDir(dataDir)`); never inside the repository. */
  root: string;
  /** Names the folder (`eval`, `plan`, `solve`); letters, digits and dashes. */
  label?: string;
  /** Aborting removes the worktree (creation included). */
  signal?: AbortSignal;
}

/**
 * A detached git worktree of the user's repository in a folder of ours, moved from commit to
 * commit. The user's working tree, index and refs are never touched; `remove()` (run it in a
 * `finally`; the abort signal runs it too) deletes the folder and git's bookkeeping under
 * .git/worktrees. A process killed before that leaves an orphan, which `cleanupOrphanWorktrees`
 * removes at the next start-up.
 */
export class Worktree {
  private current: string;
  private removing?: Promise<void>;
  private readonly onAbort = () => void this.remove();

  private constructor(
    /** The user's repository. */
    readonly repo: string,
    /** The checkout. */
    readonly path: string,
    private readonly folder: string,
    commit: string,
    private readonly signal?: AbortSignal,
  ) {
    this.current = commit;
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Add a detached worktree at `commit` in a new folder under `root`. */
  static async create(options: CreateWorktreeOptions): Promise<Worktree> {
    const { repo, root, signal } = options;
    const label = options.label ?? 'worktree';
    if (!/^[a-z0-9-]{1,32}$/i.test(label)) throw new AppError('VALIDATION', `"${label}" is not a worktree label; use letters, digits and dashes.`);
    const inside = relative(resolve(repo), resolve(root));
    if (!inside.startsWith('..') && !isAbsolute(inside)) throw new AppError('VALIDATION', `The worktree folder ${root} is inside the repository ${repo}; give a folder outside it.`);
    if (signal?.aborted) throw new AppError('CANCELLED', 'Cancelled.');
    const commit = (await gitText(['rev-parse', '--verify', '--quiet', `${options.commit}^{commit}`], { cwd: repo, signal }).catch(() => '')).trim();
    if (!commit) throw new AppError('NOT_FOUND', `${options.commit} is not a commit of ${repo}.`);
    mkdirSync(root, { recursive: true });
    const folder = mkdtempSync(join(root, `${label}-`));
    const owner: Owner = { pid: process.pid, instance: INSTANCE, host: hostname(), repo: resolve(repo), commit, label, createdAt: new Date().toISOString() };
    writeFileSync(join(folder, MARKER), `${JSON.stringify(owner, null, 2)}\n`);
    const path = join(folder, 'tree');
    // Stale entries of worktrees whose folders are gone (killed runs).
    await gitText(['worktree', 'prune'], { cwd: repo }).catch(() => undefined);
    try {
      await gitText(['worktree', 'add', '--detach', '--force', path, commit], { cwd: repo, signal });
    } catch (error) {
      await removeCheckout(repo, folder, path);
      throw error;
    }
    const worktree = new Worktree(repo, path, folder, commit, signal);
    if (signal?.aborted) await worktree.remove();
    return worktree;
  }

  /** The commit checked out now. */
  get head(): string {
    return this.current;
  }

  /** Move the worktree to another commit (git rewrites only the files that differ) and drop untracked files. */
  async checkout(commit: string, signal?: AbortSignal): Promise<void> {
    if (this.removing) throw new AppError('CANCELLED', 'The worktree was removed.');
    if (commit === this.current) return;
    await gitText(['checkout', '--detach', '--force', '-q', commit], { cwd: this.path, signal });
    await gitText(['clean', '-fdxq'], { cwd: this.path, signal });
    this.current = commit;
  }

  /** Remove the checkout, its git bookkeeping and our folder; safe to call twice or concurrently. */
  remove(): Promise<void> {
    this.signal?.removeEventListener('abort', this.onAbort);
    return (this.removing ??= removeCheckout(this.repo, this.folder, this.path));
  }
}

async function removeCheckout(repo: string, folder: string, path: string): Promise<void> {
  // `--force` twice also removes a locked worktree; when git cannot (the repository is gone, a
  // command killed mid-way left a lock), deleting the folder and pruning does the same.
  if (existsSync(repo)) await gitText(['worktree', 'remove', '--force', '--force', path], { cwd: repo }).catch(() => undefined);
  rmSync(folder, { recursive: true, force: true });
  if (existsSync(repo)) await gitText(['worktree', 'prune'], { cwd: repo }).catch(() => undefined);
}

/** One of our worktree folders as found on disk. */
export interface OwnedWorktree {
  /** Our folder (marker and checkout). */
  folder: string;
  /** The checkout. */
  path: string;
  /** The repository it belongs to; null when the marker is missing or unreadable. */
  repo: string | null;
  label: string | null;
  /** False when the process that made it is gone (a crash): an orphan to clean up. */
  alive: boolean;
}

/** Every worktree folder under `root` (ours by construction: only Worktree writes there). */
export function listWorktrees(root: string): OwnedWorktree[] {
  if (!existsSync(root)) return [];
  const found: OwnedWorktree[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const folder = join(root, entry.name);
    const owner = readOwner(folder);
    const alive = owner ? isOwnerAlive(owner) : Date.now() - statSync(folder).mtimeMs < UNMARKED_GRACE_MS;
    found.push({ folder, path: join(folder, 'tree'), repo: owner?.repo ?? null, label: owner?.label ?? null, alive });
  }
  return found;
}

/**
 * Remove the worktrees under `root` whose process is gone (killed, crashed) and their entries in
 * the repositories' .git/worktrees. Worktrees of live processes (another window, a running CLI)
 * are left alone. Returns the checkouts removed.
 */
export async function cleanupOrphanWorktrees(root: string): Promise<string[]> {
  const removed: string[] = [];
  for (const worktree of listWorktrees(root)) {
    if (worktree.alive) continue;
    if (worktree.repo) await removeCheckout(worktree.repo, worktree.folder, worktree.path);
    else rmSync(worktree.folder, { recursive: true, force: true });
    removed.push(worktree.path);
  }
  return removed;
}

function readOwner(folder: string): Owner | null {
  try {
    const owner = JSON.parse(readFileSync(join(folder, MARKER), 'utf8')) as Partial<Owner>;
    return typeof owner.pid === 'number' && typeof owner.repo === 'string' ? (owner as Owner) : null;
  } catch {
    return null;
  }
}

function isOwnerAlive(owner: Owner): boolean {
  // Another machine sharing the data folder: its processes cannot be checked, so keep its worktrees.
  if (owner.host !== hostname()) return true;
  if (owner.pid === process.pid) return owner.instance === INSTANCE;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
