import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { AppError } from '../../../shared/contract/errors';
// eslint-disable-next-line import-x/no-restricted-paths -- not yet the launcher's own: see hostImports.test.ts
import { writeFileAtomic } from '../../../core/platform/config/configFile';

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
  writeFileAtomic(path, launcherScript(options.craJs));
  chmodSync(path, 0o755);
  const onPath = (options.env ?? process.env).PATH?.split(delimiter).some((p) => p && resolve(p) === binDir) ?? false;
  return { path, replaced, onPath, ...(onPath ? {} : { hint: `${binDir} is not on your PATH: add \`export PATH="${binDir}:$PATH"\` to your shell's profile (~/.profile, ~/.bashrc or ~/.zshrc) and open a new terminal.` }) };
}

/** What to tell the person after an install (the CLI prints it; the app shows it in a dialog). */
export function describeInstall(done: LauncherInstall, craJs: string): string {
  return `${done.replaced ? 'Updated' : 'Installed'} ${done.path}: \`cra\` now runs ${craJs} (with the node on your PATH).${done.hint ? `\n${done.hint}` : ''}`;
}
