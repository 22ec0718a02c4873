import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { SkipReason } from '../../shared/contract';
import { throwIfAborted } from '../runtime/runs';
import { gitListFiles, isGitWorkTree } from './git';

/** Files above this size are recorded as `oversize` and not read. */
export const DEFAULT_MAX_FILE_BYTES = 1_000_000;

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
  const isGit = await isGitWorkTree(root);
  const listed = isGit ? await gitListFiles(root, signal) : { files: walk(root, signal), submodules: [] };
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

function walk(root: string, signal?: AbortSignal): string[] {
  const out: string[] = [];
  const visit = (dir: string, rules: Array<{ base: string; ig: Ignore }>) => {
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
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (ALWAYS_SKIPPED_DIRS.has(entry.name) || isIgnored(active, rel, true)) continue;
        visit(rel, active);
      } else if (entry.isFile() && !isIgnored(active, rel, false)) {
        out.push(rel);
      }
    }
  };
  visit('', []);
  return out;
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

/** A file read and classified: either text to index or a reason to skip it. */
export interface ReadFile {
  hash: string | null;
  text: string | null;
  encoding: 'utf8' | 'latin1' | null;
  lines: number;
  skipReason: SkipReason | null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const LOCKFILES = new Set(['package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'cargo.lock', 'poetry.lock', 'composer.lock', 'gemfile.lock', 'go.sum']);

/** Read one file and decide whether it is indexable text (UTF-8, else decoded as latin1). */
export function readAndClassify(absolutePath: string, relPath: string, size: number, maxBytes = DEFAULT_MAX_FILE_BYTES): ReadFile {
  if (size > maxBytes) return { hash: null, text: null, encoding: null, lines: 0, skipReason: 'oversize' };
  let bytes: Buffer;
  try {
    bytes = readFileSync(absolutePath);
  } catch {
    return { hash: null, text: null, encoding: null, lines: 0, skipReason: 'unreadable' };
  }
  const hash = createHash('sha1').update(bytes).digest('hex');
  if (bytes.subarray(0, 8192).includes(0)) return { hash, text: null, encoding: null, lines: 0, skipReason: 'binary' };
  let text: string;
  let encoding: 'utf8' | 'latin1' = 'utf8';
  try {
    text = utf8.decode(bytes);
  } catch {
    text = bytes.toString('latin1');
    encoding = 'latin1';
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = countLines(text);
  const skipReason = minifiedOrGenerated(relPath, text, lines);
  return { hash, text: skipReason ? null : text, encoding, lines, skipReason };
}

/** Number of lines (a final line without a newline counts). */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

function minifiedOrGenerated(relPath: string, text: string, lines: number): SkipReason | null {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1).toLowerCase();
  if (/\.min\.(js|mjs|cjs|css)$/.test(name) || name.endsWith('.map')) return 'minified';
  if (LOCKFILES.has(name)) return 'generated';
  if (text.length > 2000 && text.length / Math.max(lines, 1) > 300) return 'minified';
  const head = text.slice(0, 1000);
  if (/@generated\b|\bDO NOT EDIT\b|\bautomatically generated\b|\bauto-generated\b|^\s*(\/\/|#|\/\*)\s*Generated by\b/im.test(head)) return 'generated';
  return null;
}

/** True for test files by naming convention (test_x.py, x_test.py, x.test.ts, x.spec.js, tests/, __tests__/). */
export function isTestPath(relPath: string): boolean {
  const lower = relPath.toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  if (/^test_.*\.py$|_test\.(py|go)$|\.(test|spec)\.[cm]?[jt]sx?$|(test|tests)\.(java|cs)$|^conftest\.py$/.test(name)) return true;
  return /(^|\/)(tests?|__tests__)\//.test(lower) && /\.(py|[cm]?[jt]sx?|go|java|cs|rs)$/.test(name);
}
