import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, resolve as resolvePath } from 'node:path';
import { AppError } from '../../../shared/contract';
import { DriverCache, parseDrivers, withoutDrivers } from './neutral';

/**
 * The one place Clean Room starts git. Every command runs with the same environment and the same
 * leading `-c` options, so a user's or the machine's git configuration (pager, colours, signature
 * display, log encoding, external diff, hooks, aliases) and git variables of the parent process
 * (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE from a hook running our tests) never change what we read.
 * No command named by the repository's own configuration or attributes runs in any call: no hook,
 * fsmonitor, filter, textconv, external diff, merge driver or signing program (neutral.ts).
 */

/** Default ceiling on a command's captured stdout (a bounded `git log` of a large repository fits). */
export const DEFAULT_MAX_BUFFER = 512 * 1024 * 1024;

/**
 * Options put before every command. The repository's own config still applies (it cannot be
 * switched off), so the settings that would change parsed output are pinned here too, and so are
 * those that would run a program the repository names: hooks, the fsmonitor, signing, auto gc
 * (which would also write into the user's .git), and submodule recursion (a submodule's config has
 * drivers of its own; `dirty` compares its commit in-process instead of running `git status` there).
 */
export const GIT_BASE_ARGS: readonly string[] = [
  '-c', 'core.quotepath=off',
  '-c', 'color.ui=false',
  '-c', 'log.showSignature=false',
  '-c', 'i18n.logOutputEncoding=UTF-8',
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.fsmonitor=false',
  '-c', 'commit.gpgSign=false',
  '-c', 'tag.gpgSign=false',
  '-c', 'gc.auto=0',
  '-c', 'maintenance.auto=false',
  '-c', 'submodule.recurse=false',
  '-c', 'diff.ignoreSubmodules=dirty',
];

/** The driver overrides of each working folder (see neutral.ts). */
const drivers = new DriverCache();
/** Lists every config entry with its file; reading config runs nothing. */
const LIST_CONFIG = ['config', '-z', '--show-origin', '--list'];

/** Drivers of the repository at `cwd`, emptied (cached until its config files change). */
async function driverEnv(cwd: string): Promise<Record<string, string>> {
  const key = resolvePath(cwd);
  const cached = drivers.get(key);
  if (cached) return cached;
  const listing = await new Promise<string>((done) => {
    const child = spawn('git', [...GIT_BASE_ARGS, ...LIST_CONFIG], { cwd, env: gitEnv(), stdio: ['ignore', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.on('error', () => done(''));
    child.on('close', () => done(Buffer.concat(out).toString('utf8')));
  });
  return drivers.set(key, parseDrivers(listing, key));
}

/** `driverEnv` for the synchronous runner. */
function driverEnvSync(cwd: string): Record<string, string> {
  const key = resolvePath(cwd);
  const cached = drivers.get(key);
  if (cached) return cached;
  let listing = '';
  try {
    listing = execFileSync('git', [...GIT_BASE_ARGS, ...LIST_CONFIG], { cwd, env: gitEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: DEFAULT_MAX_BUFFER });
  } catch {
    // Not a folder or not readable: the command itself says so.
  }
  return drivers.set(key, parseDrivers(listing, key));
}

/** Variables of the parent kept although they start with GIT_ (where git's helpers live). */
const KEPT_GIT_VARS = new Set(['GIT_EXEC_PATH']);

/** Object folders of ours every command may also read (see worktree.ts, keptObjectsDir). */
const extraObjects = new Set<string>();

/**
 * Let every git command of this process read objects from `dir` too (GIT_ALTERNATE_OBJECT_DIRECTORIES):
 * commits our checkouts made and kept, read in the user's repository without writing them there.
 */
export function readObjectsFrom(dir: string): void {
  extraObjects.add(resolvePath(dir));
}

/**
 * The environment of every git command: the parent's, less every GIT_* variable, plus no system
 * or global config (GIT_CONFIG_GLOBAL needs git ≥ 2.32; git for Windows maps /dev/null to NUL),
 * no prompt, no pager, no optional locks, and C messages (errors are recognised by their text).
 * `extra` comes last (a fixture's author and dates).
 */
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (key.toUpperCase().startsWith('GIT_') && !KEPT_GIT_VARS.has(key.toUpperCase())) continue;
    env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    ...(extraObjects.size ? { GIT_ALTERNATE_OBJECT_DIRECTORIES: [...extraObjects].filter((dir) => existsSync(dir)).join(delimiter) } : {}),
    ...extra,
  };
}

/** What went wrong with a git command. */
export type GitFailure = 'missing' | 'not-a-repository' | 'failed' | 'output-too-large';

/**
 * A git command that could not run or exited non-zero. `missing` (no git on PATH) is UNSUPPORTED
 * and `not-a-repository` VALIDATION, both with a message that says what to do; the others are
 * INTERNAL and carry git's stderr.
 */
export class GitError extends AppError {
  constructor(
    readonly failure: GitFailure,
    message: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    options: { cause?: unknown } = {},
  ) {
    super(failure === 'missing' ? 'UNSUPPORTED' : failure === 'not-a-repository' ? 'VALIDATION' : 'INTERNAL', message, options);
    this.name = 'GitError';
  }
}

/** How to run one git command. */
export interface RunGitOptions {
  /** The repository or worktree folder the command runs in. */
  cwd: string;
  signal?: AbortSignal;
  /** Written to the command's stdin (closed after). */
  input?: string | Buffer;
  /** Most bytes of stdout kept; beyond it the command is stopped (default 512 MiB). */
  maxBuffer?: number;
  /** Variables added after the fixed environment (author, committer and dates of a commit). */
  env?: Record<string, string>;
}

function failure(args: readonly string[], cwd: string, code: number | null, stderr: string): GitError {
  const text = stderr.trim();
  if (/not a git repository/i.test(text)) {
    return new GitError('not-a-repository', `${cwd} is not a git repository; give the path of a folder with a .git.`, args, code, text);
  }
  return new GitError('failed', `git ${args.join(' ')} failed (${code}): ${text}`, args, code, text);
}

function spawnFailure(args: readonly string[], cwd: string, error: NodeJS.ErrnoException): Error {
  if (error.code !== 'ENOENT') return error;
  // spawn says ENOENT both for a missing program and for a missing working folder.
  if (!existsSync(cwd)) return new AppError('NOT_FOUND', `No folder at ${cwd}; give the path of a git repository.`, { cause: error });
  return new GitError('missing', 'git is not installed (no `git` on PATH); install git and try again.', args, null, '', { cause: error });
}

/**
 * Run `git <args>` in `cwd` (never through a shell) and return its stdout. Rejects with CANCELLED
 * when `signal` aborts, else with a GitError.
 */
export async function runGit(args: readonly string[], options: RunGitOptions): Promise<Buffer> {
  if (options.signal?.aborted) throw new AppError('CANCELLED', 'Cancelled.');
  const overrides = existsSync(options.cwd) ? await driverEnv(options.cwd) : {};
  return spawnGit(args, options, overrides);
}

function spawnGit(args: readonly string[], options: RunGitOptions, overrides: Record<string, string>): Promise<Buffer> {
  const { cwd, signal } = options;
  const maxBuffer = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AppError('CANCELLED', 'Cancelled.'));
    const child = spawn('git', [...GIT_BASE_ARGS, ...withoutDrivers(args)], {
      cwd,
      signal,
      env: gitEnv({ ...overrides, ...options.env }),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBuffer) {
        tooLarge = true;
        child.kill();
        return;
      }
      out.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    if (options.input !== undefined) {
      child.stdin!.on('error', () => undefined); // git may exit before reading all of it; the exit code tells
      child.stdin!.end(options.input);
    }
    child.on('error', (error) => reject(signal?.aborted ? new AppError('CANCELLED', 'Cancelled.') : spawnFailure(args, cwd, error)));
    child.on('close', (code) => {
      if (signal?.aborted) return reject(new AppError('CANCELLED', 'Cancelled.'));
      if (tooLarge) return reject(new GitError('output-too-large', `git ${args.join(' ')} wrote more than ${maxBuffer} bytes.`, args, code, ''));
      if (code === 0) resolve(Buffer.concat(out));
      else reject(failure(args, cwd, code, Buffer.concat(err).toString('utf8')));
    });
  });
}

/** `runGit` decoded as UTF-8. */
export async function gitText(args: readonly string[], options: RunGitOptions): Promise<string> {
  return (await runGit(args, options)).toString('utf8');
}

/**
 * The synchronous form, for test fixtures that build repositories step by step (same arguments,
 * same environment, same errors). The engine uses `runGit`.
 */
export function runGitSync(args: readonly string[], options: Omit<RunGitOptions, 'signal'>): string {
  try {
    const overrides = existsSync(options.cwd) ? driverEnvSync(options.cwd) : {};
    return execFileSync('git', [...GIT_BASE_ARGS, ...withoutDrivers(args)], {
      cwd: options.cwd,
      env: gitEnv({ ...overrides, ...options.env }),
      input: options.input,
      maxBuffer: options.maxBuffer ?? DEFAULT_MAX_BUFFER,
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { status?: number | null; stderr?: string };
    if (e.code === 'ENOENT') throw spawnFailure(args, options.cwd, e);
    throw failure(args, options.cwd, e.status ?? null, String(e.stderr ?? e.message));
  }
}
