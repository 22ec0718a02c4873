/**
 * The OS sandbox validation commands run in: model-written code (a test script the step edited)
 * runs there before any review, so it gets the run's checkout to write in and nothing else of the
 * user's. Linux: bubblewrap (`bwrap`) — the root read-only, the checkout writable (its .git
 * read-only), a private /tmp, the user's $HOME hidden, no network, its own pid namespace, killed
 * with us. macOS: `sandbox-exec` with a profile that denies the network, reads of $HOME and writes
 * outside the checkout (written to Apple's documented profile language; not run by our tests,
 * which run on Linux). Elsewhere, or where bwrap cannot make namespaces, there is none: then a
 * validation runs only with the user's consent (`[sandbox] allow_unsandboxed_validation`, or
 * `cra solve --allow-unsandboxed-validation`).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { AppError } from '../../../shared/contract';

/** A sandbox this machine has. */
export type SandboxKind = 'bwrap' | 'sandbox-exec';

/** The program a command line runs under, with its arguments and environment. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** Where the sandbox's HOME and TMPDIR are (its private /tmp on Linux). */
const SANDBOX_TMP = '/tmp';
const SANDBOX_HOME = '/tmp/home';

/** `name` on PATH, or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

let detected: Promise<{ kind: SandboxKind; program: string } | null> | undefined;

/**
 * The sandbox this machine offers, checked once per process: bwrap must be on PATH and able to make
 * its namespaces (a container or a kernel setting can forbid them); sandbox-exec must exist.
 */
export function detectSandbox(): Promise<{ kind: SandboxKind; program: string } | null> {
  detected ??= (async () => {
    if (process.platform === 'linux') {
      const bwrap = onPath('bwrap');
      if (!bwrap) return null;
      const works = await new Promise<boolean>((done) => {
        execFile(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--unshare-pid', '--die-with-parent', 'true'], { timeout: 10_000 }, (error) => done(!error));
      });
      return works ? { kind: 'bwrap', program: bwrap } : null;
    }
    if (process.platform === 'darwin' && existsSync('/usr/bin/sandbox-exec')) return { kind: 'sandbox-exec', program: '/usr/bin/sandbox-exec' };
    return null;
  })();
  return detected;
}

/** The setting and the flag that allow a validation without a sandbox (named in every refusal). */
export const UNSANDBOXED_SETTING = '[sandbox] allow_unsandboxed_validation = true';
export const UNSANDBOXED_FLAG = '--allow-unsandboxed-validation';

/** What the user is told where no sandbox exists. */
export function noSandboxMessage(): string {
  const how = process.platform === 'linux' ? 'bubblewrap (`bwrap`) is not installed or cannot create namespaces here; install it (e.g. `apt install bubblewrap`)' : `${process.platform} has no sandbox Clean Room can use`;
  return `Validation commands run code the model may have written (before you review it), and ${how}. Without a sandbox they would run with your rights: your files, your network and your environment. To allow that, set ${UNSANDBOXED_SETTING} (Settings → Validation sandbox) or pass ${UNSANDBOXED_FLAG} to cra solve.`;
}

/**
 * The sandbox validations of a repository run in, or null when the user agreed to run them
 * without one; refuses (UNSUPPORTED, naming the setting and the flag) when there is none and no consent.
 */
export async function requireSandbox(allowUnsandboxed: boolean): Promise<{ kind: SandboxKind; program: string } | null> {
  const sandbox = await detectSandbox();
  if (sandbox || allowUnsandboxed) return sandbox;
  throw new AppError('UNSUPPORTED', noSandboxMessage());
}

/** The environment a validation sees: a path, a scratch home, a language, CI — no token or key of the user's. */
export function minimalEnv(home: string, tmp: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: home, TMPDIR: tmp, LANG: process.env.LANG ?? 'C.UTF-8', CI: '1', GIT_OPTIONAL_LOCKS: '0' };
}

/** The object folders the checkout's git borrows (its alternates): readable inside the sandbox. */
function borrowedObjects(checkout: string): string[] {
  try {
    return readFileSync(join(checkout, '.git', 'objects', 'info', 'alternates'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#') && existsSync(line));
  } catch {
    return [];
  }
}

/** `sh -c command` in `checkout` under bubblewrap. */
function bwrapCommand(program: string, command: string, checkout: string): SandboxedCommand {
  const home = process.env.HOME;
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', SANDBOX_TMP, '--dir', SANDBOX_HOME];
  // The user's home hidden (a checkout or object folder inside it is bound back below).
  if (home && home !== '/' && existsSync(home)) args.push('--tmpfs', home);
  for (const objects of borrowedObjects(checkout)) args.push('--ro-bind', objects, objects);
  args.push('--bind', checkout, checkout);
  if (existsSync(join(checkout, '.git'))) args.push('--ro-bind', join(checkout, '.git'), join(checkout, '.git'));
  args.push('--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--new-session', '--die-with-parent', '--clearenv');
  const env = minimalEnv(SANDBOX_HOME, SANDBOX_TMP);
  for (const [key, value] of Object.entries(env)) args.push('--setenv', key, value!);
  args.push('--chdir', checkout, '--', 'sh', '-c', command);
  return { file: program, args, env };
}

/** The sandbox-exec profile: everything the default allows, less the network, $HOME and writes outside the checkout. */
export const MACOS_PROFILE = `(version 1)
(allow default)
(deny network*)
(deny file-read* (subpath (param "HOME")))
(deny file-write*)
(allow file-read* file-write* (subpath (param "CHECKOUT")) (subpath (param "TMP")))
(deny file-write* (subpath (param "GITDIR")))
(allow file-read* (subpath (param "OBJECTS")) (subpath (param "KEPT")))
(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))
`;

/** `sh -c command` in `checkout` under sandbox-exec (untested here: our tests run on Linux). */
function sandboxExecCommand(program: string, command: string, checkout: string, tmp: string): SandboxedCommand {
  const [objects, kept] = borrowedObjects(checkout);
  const own = join(checkout, '.git', 'objects');
  const params = { HOME: process.env.HOME ?? '/nonexistent', CHECKOUT: checkout, TMP: tmp, GITDIR: join(checkout, '.git'), OBJECTS: objects ?? own, KEPT: kept ?? own };
  const args = Object.entries(params).flatMap(([key, value]) => ['-D', `${key}=${value}`]);
  args.push('-p', MACOS_PROFILE, '/bin/sh', '-c', command);
  return { file: program, args, env: minimalEnv(join(tmp, 'home'), tmp) };
}

/**
 * How to run `command` in `checkout`: under the sandbox, or (null: the user agreed) as a plain
 * shell with the minimal environment. `tmp` is a scratch folder of ours (macOS and no sandbox:
 * HOME and TMPDIR point into it; Linux uses a private /tmp).
 */
export function sandboxed(sandbox: { kind: SandboxKind; program: string } | null, command: string, checkout: string, tmp: string): SandboxedCommand {
  if (sandbox?.kind === 'bwrap') return bwrapCommand(sandbox.program, command, checkout);
  if (sandbox?.kind === 'sandbox-exec') return sandboxExecCommand(sandbox.program, command, checkout, tmp);
  return { file: 'sh', args: ['-c', command], env: minimalEnv(join(tmp, 'home'), tmp) };
}
