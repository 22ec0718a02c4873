import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { throwIfAborted } from '../../platform/runtime/runs';
import { gitListFiles, isGitWorkTree } from './git';

/** What the scanner found: repository-relative POSIX paths. */
export interface Listing {
  isGit: boolean;
  files: Array<{ path: string; size: number; mtimeMs: number }>;
  submodules: string[];
}

const ALWAYS_SKIPPED_DIRS = new Set(['.git', 'node_modules']);

/**
 * List the files of a repository: `git ls-files` (tracked + untracked not ignored) in a git work
 * tree, else a walk honouring .gitignore files that skips .git and node_modules. Symbolic links are
 * never followed (no loops) and are left out, as are listed paths that no longer exist.
 */
export async function listFiles(root: string, signal?: AbortSignal): Promise<Listing> {
  // Both git calls at once (the listing fails outside a work tree and is then not used).
  const [isGit, gitListing] = await Promise.all([isGitWorkTree(root), gitListFiles(root, signal).then((listed) => ({ listed }), (error: unknown) => ({ error }))]);
  if (isGit && 'error' in gitListing) throw gitListing.error;
  const listed = isGit && 'listed' in gitListing ? gitListing.listed : { files: (await walk(root, signal)).files, submodules: [] };
  const files: Listing['files'] = [];
  for (const path of listed.files) {
    try {
      const stat = lstatSync(join(root, path));
      if (stat.isFile()) files.push({ path, size: stat.size, mtimeMs: Math.floor(stat.mtimeMs) });
    } catch {
      // Deleted in the work tree but still in the git index: not a file to index.
    }
  }
  return { isGit, files, submodules: listed.submodules };
}

/** Folders read between two yields to the event loop: a walk of a large folder never blocks the engine (its progress, a Cancel). */
const DIRS_PER_YIELD = 32;

/**
 * Walk a folder that is not a git work tree, honouring .gitignore files and skipping .git and
 * node_modules; stops once `limit` files are found (`capped`). Yields to the event loop every few
 * folders.
 */
async function walk(root: string, signal?: AbortSignal, limit = Infinity): Promise<{ files: string[]; capped: boolean }> {
  const out: string[] = [];
  let dirs = 0;
  const visit = async (dir: string, rules: Array<{ base: string; ig: Ignore }>): Promise<void> => {
    if (++dirs % DIRS_PER_YIELD === 0) await new Promise((resolve) => setImmediate(resolve));
    throwIfAborted(signal);
    const here = readGitignore(root, dir);
    const active = here ? [...rules, { base: dir, ig: here }] : rules;
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= limit) return;
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (ALWAYS_SKIPPED_DIRS.has(entry.name) || isIgnored(active, rel, true)) continue;
        await visit(rel, active);
      } else if (entry.isFile() && !isIgnored(active, rel, false)) {
        out.push(rel);
      }
    }
  };
  await visit('', []);
  return { files: out, capped: out.length >= limit };
}

/**
 * How many files an index of a folder would list, counted cheaply and bounded: a git work tree is
 * not counted (`files` null: its listing is git's); another folder is walked as the indexer walks
 * it until `limit` files (`capped` when there are at least that many).
 */
export async function countFiles(root: string, limit: number, signal?: AbortSignal): Promise<{ isGit: boolean; files: number | null; capped: boolean }> {
  if (await isGitWorkTree(root)) return { isGit: true, files: null, capped: false };
  const { files, capped } = await walk(root, signal, limit);
  return { isGit: false, files: files.length, capped };
}

function readGitignore(root: string, dir: string): Ignore | null {
  try {
    return ignore().add(readFileSync(join(root, dir, '.gitignore'), 'utf8'));
  } catch {
    return null;
  }
}

function isIgnored(rules: Array<{ base: string; ig: Ignore }>, rel: string, isDir: boolean): boolean {
  return rules.some(({ base, ig }) => {
    const local = base ? rel.slice(base.length + 1) : rel;
    return ig.ignores(isDir ? `${local}/` : local);
  });
}

/** True for test files by naming convention (test_x.py, x_test.py, x.test.ts, x.spec.js, tests/, __tests__/). */
export function isTestPath(relPath: string): boolean {
  const lower = relPath.toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  if (/^test_.*\.py$|_test\.(py|go)$|\.(test|spec)\.[cm]?[jt]sx?$|(test|tests)\.(java|cs)$|^conftest\.py$/.test(name)) return true;
  return /(^|\/)(tests?|__tests__)\//.test(lower) && /\.(py|[cm]?[jt]sx?|go|java|cs|rs)$/.test(name);
}
