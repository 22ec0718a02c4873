import { nodeCrypto } from '../nodeModules';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { AppError } from '../../../shared/contract';
import { gitText, readObjectsFrom } from './run';
import { keptObjectsDir } from '../layout';

/** The marker beside each checkout: who made it, for which repository. */
const MARKER = 'owner.json';
/** This process, told apart from an earlier one that had the same pid (pid 1 in a container); made on first use. */
let instance: string | undefined;
const instanceId = (): string => (instance ??= nodeCrypto().randomUUID());
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
 * A detached checkout of the user's repository in a folder of ours, moved from commit to commit.
 * It is a repository of its own (`tree/.git` in our folder) that borrows the user's objects
 * read-only through git's alternates: nothing in it — its config, hooks, index, refs, objects — is
 * shared with the user's .git, so code run in the checkout (a validation command) cannot write into
 * the user's repository through it, and no git call of ours there writes into the user's .git
 * either (gc is off). The user's working tree, index, refs and .git are never touched; `remove()`
 * (run it in a `finally`; the abort signal runs it too) deletes the folder. A process killed before
 * that leaves an orphan, which `cleanupOrphanWorktrees` removes at the next start-up.
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

  /** Make a detached checkout of `commit` in a new folder under `root`. */
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
    const owner: Owner = { pid: process.pid, instance: instanceId(), host: hostname(), repo: resolve(repo), commit, label, createdAt: new Date().toISOString() };
    writeFileSync(join(folder, MARKER), `${JSON.stringify(owner, null, 2)}\n`);
    const path = join(folder, 'tree');
    try {
      await initBorrowing(repo, root, path, signal);
      await gitText(['checkout', '--detach', '--force', '-q', commit], { cwd: path, signal });
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
    try {
      await gitText(['checkout', '--detach', '--force', '-q', commit], { cwd: this.path, signal });
      await gitText(['clean', '-fdxq'], { cwd: this.path, signal });
    } catch (error) {
      // A failed checkout may leave the tree half-way: no commit is current, so the next
      // checkout of any commit (the previous one included) writes the tree again.
      this.current = '';
      throw error;
    }
    this.current = commit;
  }

  /**
   * Copy the objects this checkout made (its commits, trees and blobs) into `keptObjectsDir`, so
   * its commits stay readable after `remove()` — from a later checkout and from the user's repository
   * by our own git calls (nothing is written into the user's .git).
   */
  keep(): void {
    const own = join(this.path, '.git', 'objects');
    const kept = keptObjectsDir(dirname(this.folder));
    for (const fan of readdirSync(own)) {
      if (!/^[0-9a-f]{2}$/.test(fan)) continue; // loose objects only: gc is off, so git packs nothing here
      mkdirSync(join(kept, fan), { recursive: true });
      for (const name of readdirSync(join(own, fan))) {
        const target = join(kept, fan, name);
        if (existsSync(target)) continue;
        const temp = `${target}.${nodeCrypto().randomUUID()}.tmp`;
        copyFileSync(join(own, fan, name), temp);
        renameSync(temp, target);
      }
    }
  }

  /** Remove the checkout and our folder; safe to call twice or concurrently. */
  remove(): Promise<void> {
    this.signal?.removeEventListener('abort', this.onAbort);
    return (this.removing ??= removeCheckout(this.repo, this.folder, this.path));
  }
}

/**
 * `git init` a repository of ours at `path` whose alternates are the user's object folder (and the
 * objects we keep), with the user's shallow boundary when the repository is shallow. Reads the
 * user's repository only (one `rev-parse`); no template, so no sample hooks.
 */
async function initBorrowing(repo: string, root: string, path: string, signal?: AbortSignal): Promise<void> {
  const common = (await gitText(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: repo, signal })).trim();
  const kept = keptObjectsDir(root);
  mkdirSync(join(kept, 'info'), { recursive: true });
  readObjectsFrom(kept);
  await gitText(['init', '-q', '--template=', path], { cwd: root, signal });
  const git = join(path, '.git');
  mkdirSync(join(git, 'objects', 'info'), { recursive: true });
  writeFileSync(join(git, 'objects', 'info', 'alternates'), `${join(common, 'objects')}\n${kept}\n`);
  if (existsSync(join(common, 'shallow'))) copyFileSync(join(common, 'shallow'), join(git, 'shallow'));
  const settings: Array<[string, string]> = [
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['core.fsmonitor', 'false'],
  ];
  for (const [key, value] of settings) {
    await gitText(['config', key, value], { cwd: path, signal });
  }
}

async function removeCheckout(repo: string, folder: string, path: string): Promise<void> {
  // A checkout made by an earlier version was a linked worktree (`tree/.git` a file): its entry
  // under the user's .git/worktrees is pruned once its folder is gone.
  let linked = false;
  try {
    linked = lstatSync(join(path, '.git')).isFile();
  } catch {
    // no checkout (yet)
  }
  rmSync(folder, { recursive: true, force: true });
  if (linked && existsSync(repo)) await gitText(['worktree', 'prune'], { cwd: repo }).catch(() => undefined);
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
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue; // .objects: kept objects, not a checkout
    const folder = join(root, entry.name);
    const owner = readOwner(folder);
    const alive = owner ? isOwnerAlive(owner) : Date.now() - statSync(folder).mtimeMs < UNMARKED_GRACE_MS;
    found.push({ folder, path: join(folder, 'tree'), repo: owner?.repo ?? null, label: owner?.label ?? null, alive });
  }
  return found;
}

/**
 * Remove the worktrees under `root` whose process is gone (killed, crashed) (and, for a linked
 * worktree an earlier version made, its entry in the repository's .git/worktrees). Worktrees of live processes (another window, a running CLI)
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
  if (owner.pid === process.pid) return owner.instance === instanceId();
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
