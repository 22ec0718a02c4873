import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { AppError } from '../../../shared/contract/errors';

/** The line that marks a launcher as ours: only such a file is ever replaced. */
const MARKER = '# Clean Room command-line launcher';

/** Where the launcher goes by default: ~/.local/bin (on the PATH of most Linux and macOS shells). */
export function defaultBinDir(): string {
  return join(homedir(), '.local', 'bin');
}

/**
 * The launcher: a shell script that runs this checkout's bin/cra.js with the `node` on the PATH
 * (Electron's own binary is not a Node the CLI can use), passing every argument through.
 */
export function launcherScript(craJs: string): string {
  const quoted = `'${craJs.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh\n${MARKER} (\`cra install-cli\` or the app's Help menu wrote it; run that again to update it).\nexec node ${quoted} "$@"\n`;
}

/** What {@link installCliLauncher} did. */
export interface LauncherInstall {
  /** The launcher file. */
  path: string;
  /** Whether a launcher of ours was there already (now rewritten). */
  replaced: boolean;
  /** Whether the folder is on this process's PATH; when not, `hint` says how to add it. */
  onPath: boolean;
  hint?: string;
}

/**
 * Put `cra` on the PATH: write `<binDir>/cra`, a launcher of this checkout's bin/cra.js (see
 * {@link launcherScript}), atomically and executable. A `cra` there that is not a launcher of ours
 * (another tool's, or an `npm link`) is left alone: CONFLICT, saying what to do. Not on Windows,
 * where `npm link` in the clone does it.
 */
export function installCliLauncher(options: { craJs: string; binDir?: string; env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform }): LauncherInstall {
  if ((options.platform ?? process.platform) === 'win32') throw new AppError('UNSUPPORTED', 'Installing the command-line tool is not supported on Windows; run `npm link` in the Clean Room folder instead.');
  const binDir = resolve(options.binDir ?? defaultBinDir());
  const path = join(binDir, 'cra');
  if (!existsSync(options.craJs)) throw new AppError('NOT_FOUND', `${options.craJs} does not exist; install the command-line tool from a Clean Room checkout (it runs that checkout's bin/cra.js).`);
  let replaced = false;
  if (existsSync(path)) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      // A folder or an unreadable file: not ours.
    }
    if (!current.includes(MARKER)) throw new AppError('CONFLICT', `${path} exists and is not a Clean Room launcher; it is left as it is. Remove it yourself, or install into another folder (--bin-dir DIR).`);
    replaced = true;
  }
  mkdirSync(binDir, { recursive: true });
  writeExecutable(path, launcherScript(options.craJs));
  const onPath = (options.env ?? process.env).PATH?.split(delimiter).some((p) => p && resolve(p) === binDir) ?? false;
  return { path, replaced, onPath, ...(onPath ? {} : { hint: `${binDir} is not on your PATH: add \`export PATH="${binDir}:$PATH"\` to your shell's profile (~/.profile, ~/.bashrc or ~/.zshrc) and open a new terminal.` }) };
}

/**
 * Write an executable file whole or not at all: a temporary file beside it, synced, made
 * executable, then renamed over it (a full disk leaves the old launcher, or none, never half of one).
 */
function writeExecutable(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const fd = openSync(tmp, 'w', 0o755);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, 0o755);
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC') throw new AppError('DISK_FULL', `Cannot write ${file}: the disk is full. Free some space and try again.`, { cause: error });
    throw error;
  }
}

/** What to tell the person after an install (the CLI prints it; the app shows it in a dialog). */
export function describeInstall(done: LauncherInstall, craJs: string): string {
  return `${done.replaced ? 'Updated' : 'Installed'} ${done.path}: \`cra\` now runs ${craJs} (with the node on your PATH).${done.hint ? `\n${done.hint}` : ''}`;
}
