import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/**
 * What keeps a repository's own configuration and attributes from running commands in the git
 * calls we make. Fixed settings (fsmonitor, signing, auto gc, submodule recursion) are `-c`
 * options of GIT_BASE_ARGS; this module adds the two parts that depend on the command and the
 * repository: the diff family gets `--no-textconv --no-ext-diff`, and every filter, diff and merge
 * driver the repository's config defines is emptied (an empty command is no command to git) through
 * GIT_CONFIG_COUNT variables — never `-c`, whose `name=value` cannot carry a driver name with `=`.
 */

/** Subcommands that show diffs or blame and run textconv / external diff drivers unless told not to. */
const DIFF_FAMILY = new Set(['diff', 'log', 'show', 'whatchanged', 'format-patch', 'diff-tree', 'diff-index', 'diff-files', 'blame', 'annotate']);
/** Flags given to the diff family. */
const NO_DRIVERS = ['--no-textconv', '--no-ext-diff'];

/** `args` with the diff family's flags put right after the subcommand (leading `-c x=y` / `-C dir` skipped). */
export function withoutDrivers(args: readonly string[]): string[] {
  let at = 0;
  while (at < args.length && (args[at] === '-c' || args[at] === '-C')) at += 2;
  const command = args[at];
  if (command === undefined || !DIFF_FAMILY.has(command)) return [...args];
  return [...args.slice(0, at + 1), ...NO_DRIVERS, ...args.slice(at + 1)];
}

/** The variables each defined driver gets: its commands empty (filters also not required). */
const EMPTIED: Record<'filter' | 'diff' | 'merge', Array<[string, string]>> = {
  filter: [
    ['clean', ''],
    ['smudge', ''],
    ['process', ''],
    ['required', 'false'],
  ],
  diff: [
    ['textconv', ''],
    ['command', ''],
    ['cachetextconv', 'false'],
  ],
  merge: [['driver', '']],
};

/** What a repository's config defines: driver names by kind, and the files it was read from. */
export interface RepoDrivers {
  drivers: Array<{ kind: keyof typeof EMPTIED; name: string }>;
  /** Absolute paths of the config files the listing came from (the cache's key). */
  files: string[];
  /** False when a later change could go unnoticed by the files' stamps (no file, or worktree config). */
  cacheable: boolean;
}

/**
 * Parse `git config -z --show-origin --list` (origin NUL key LF value NUL …, keys with their section
 * and variable lower-cased) into the driver names and the config files read; `cwd` resolves
 * relative origins.
 */
export function parseDrivers(listing: string, cwd: string): RepoDrivers {
  const parts = listing.split('\0');
  const seen = new Set<string>();
  const drivers: RepoDrivers['drivers'] = [];
  const files = new Set<string>();
  let cacheable = true;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const origin = parts[i]!;
    const newline = parts[i + 1]!.indexOf('\n');
    const key = newline < 0 ? parts[i + 1]! : parts[i + 1]!.slice(0, newline);
    if (origin.startsWith('file:')) {
      const file = origin.slice('file:'.length);
      files.add(isAbsolute(file) ? file : resolve(cwd, file));
    }
    if (key === 'extensions.worktreeconfig') cacheable = false;
    const match = /^(filter|diff|merge)\.(.+)\.([^.]+)$/.exec(key);
    if (!match) continue;
    const kind = match[1] as keyof typeof EMPTIED;
    const id = `${kind}\0${match[2]}`;
    if (seen.has(id)) continue;
    seen.add(id);
    drivers.push({ kind, name: match[2]! });
  }
  return { drivers, files: [...files], cacheable: cacheable && files.size > 0 };
}

/** The GIT_CONFIG_COUNT variables that empty every driver in `found`. */
export function driverOverrides(found: RepoDrivers): Record<string, string> {
  const env: Record<string, string> = {};
  let n = 0;
  for (const { kind, name } of found.drivers) {
    for (const [variable, value] of EMPTIED[kind]) {
      env[`GIT_CONFIG_KEY_${n}`] = `${kind}.${name}.${variable}`;
      env[`GIT_CONFIG_VALUE_${n}`] = value;
      n++;
    }
  }
  return n ? { GIT_CONFIG_COUNT: String(n), ...env } : {};
}

/** A file's identity and version (config files are rewritten through a lock file and a rename); null when missing. */
function stamp(file: string): { id: string; mtimeMs: number } | null {
  try {
    const s = statSync(file);
    return { id: `${s.ino}:${s.size}:${s.mtimeMs}`, mtimeMs: s.mtimeMs };
  } catch {
    return null;
  }
}

/** A file changed this recently may change again within its stamp's resolution (git's "racy" case): not cached. */
const RACY_MS = 2000;

/**
 * The overrides per working folder, read again only when one of the config files it was read from
 * changed (one `git config` call per folder and change, not one per command).
 */
export class DriverCache {
  private readonly entries = new Map<string, { files: string[]; stamps: string[]; env: Record<string, string> }>();

  /** The cached overrides for `cwd`, or undefined when they must be read. */
  get(cwd: string): Record<string, string> | undefined {
    const entry = this.entries.get(cwd);
    if (!entry) return undefined;
    if (entry.files.some((file, i) => stamp(file)?.id !== entry.stamps[i])) {
      this.entries.delete(cwd);
      return undefined;
    }
    return entry.env;
  }

  /** The overrides of a fresh reading, kept when its files can be trusted to show a later change. */
  set(cwd: string, found: RepoDrivers): Record<string, string> {
    const env = driverOverrides(found);
    const stamps = found.files.map(stamp);
    const settled = stamps.every((s) => s !== null && Date.now() - s.mtimeMs > RACY_MS);
    if (found.cacheable && settled) this.entries.set(cwd, { files: found.files, stamps: stamps.map((s) => s!.id), env });
    return env;
  }
}
