/**
 * Confinement of request-given paths to a repository: the one check every read of a repository
 * file by a path that came from outside (a request, a model's answer) goes through, and that every
 * model-written path will go through too. An index is a snapshot: between indexing and a request a
 * file can be replaced by a symbolic link to anywhere (`src/a.ts -> /etc/shadow`), so the check is
 * made on the real path at the time of use, not on the indexed path.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, posix, relative, resolve, sep, win32 } from 'node:path';
import { AppError } from '../../../shared/contract';

/** A path proven to lie inside a repository. */
export interface ConfinedPath {
  /** The real absolute path (symbolic links resolved; for a missing file, below its nearest existing folder). */
  absolute: string;
  /** The same path relative to the real repository root, with `/` separators. */
  relative: string;
  /** Whether something exists at the path now. */
  exists: boolean;
}

/** How to confine a path. */
export interface ConfineOptions {
  /**
   * Accept a path that does not exist yet (a file about to be written): its nearest existing
   * parent folder is resolved and confined instead, and the missing rest is appended. Default
   * false: a missing path is NOT_FOUND.
   */
  allowMissing?: boolean;
  /**
   * The path is one git reported (a tree entry): only `/` separates folders, so on POSIX a
   * backslash is part of a name (`back\\slash.txt`), as git and the file system have it.
   * Default false: a backslash separates too (a model's or a request's path).
   */
  gitPath?: boolean;
}

/**
 * Resolve `requested` (relative to the repository `root`) to a real path inside the repository.
 * Refused with VALIDATION, naming the problem: an empty path or one with a NUL byte, an absolute
 * path, a `..` that leaves the root, a symbolic link (of the file or of any folder on the way)
 * whose target lies outside the real root, and anything inside a `.git` folder (git's own files:
 * hooks and config are code git runs). A missing path is NOT_FOUND unless `allowMissing`.
 *
 * For reading, prefer `readConfinedFile`, which also refuses a link swapped in between this check
 * and the open. For a future write: confine with `allowMissing`, then create the file with
 * `O_EXCL | O_NOFOLLOW` under `absolute` so a link planted after the check is not followed.
 */
export function confinePath(root: string, requested: string, options: ConfineOptions = {}): ConfinedPath {
  const shown = JSON.stringify(requested);
  if (requested.length === 0) throw new AppError('VALIDATION', 'The file path is empty; give a path relative to the repository.');
  if (requested.includes('\0')) throw new AppError('VALIDATION', `The file path ${shown} contains a NUL byte; give a path relative to the repository.`);
  const posixNames = options.gitPath === true && sep === '/';
  if (isAbsolute(requested) || posix.isAbsolute(requested) || (!posixNames && win32.isAbsolute(requested))) {
    throw new AppError('VALIDATION', `${shown} is an absolute path; give a path relative to the repository (for example src/index.ts).`);
  }
  const parts = requested.split(posixNames ? /\/+/ : /[\\/]+/).filter((p) => p !== '' && p !== '.');
  const lexical: string[] = [];
  for (const part of parts) {
    if (part !== '..') lexical.push(part);
    else if (lexical.pop() === undefined) throw new AppError('VALIDATION', `${shown} leads outside the repository (through ".."); give a path inside it.`);
  }
  if (lexical.length === 0) throw new AppError('VALIDATION', `${shown} names the repository folder itself, not a file in it.`);
  refuseGitDir(lexical, shown);

  const realRoot = realRootOf(root);
  // The nearest existing ancestor (the path itself when it exists) is resolved by the OS; only
  // not-yet-existing names are appended to it, and those cannot be links.
  let existing = lexical.length;
  while (existing > 0 && !exists(resolve(realRoot, ...lexical.slice(0, existing)))) existing--;
  if (existing < lexical.length && !options.allowMissing) {
    throw new AppError('NOT_FOUND', `${shown} does not exist in the repository.`);
  }
  const realBase = existing === 0 ? realRoot : realpathOrRefuse(resolve(realRoot, ...lexical.slice(0, existing)), shown);
  const absolute = existing === lexical.length ? realBase : resolve(realBase, ...lexical.slice(existing));
  const inside = relative(realRoot, absolute);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    throw new AppError('VALIDATION', `${shown} is a symbolic link (or lies below one) that points outside the repository; it is not shown.`);
  }
  const insideParts = inside.split(sep);
  refuseGitDir(insideParts, shown);
  return { absolute, relative: insideParts.join('/'), exists: existing === lexical.length };
}

/** What `readConfinedFile` returns: the file's first bytes and its real size. */
export interface ConfinedRead {
  bytes: Buffer;
  /** The file's size; more than `bytes.length` when the read was capped. */
  size: number;
}

/**
 * Read at most `maxBytes` of a regular file inside the repository, confined as `confinePath`
 * describes. The file is opened without following a final symbolic link and the opened file is
 * checked to be the one that was confined, so a link swapped in between the check and the open is
 * refused rather than followed. A folder, a device or a FIFO is refused with VALIDATION.
 */
export function readConfinedFile(root: string, requested: string, maxBytes: number): ConfinedRead {
  const confined = confinePath(root, requested);
  const checked = lstatSync(confined.absolute);
  if (!checked.isFile()) throw new AppError('VALIDATION', `${JSON.stringify(requested)} is not a regular file; only files can be shown.`);
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO swapped in after the check must not block the open; O_NOFOLLOW: nor a link.
    fd = openSync(confined.absolute, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new AppError('NOT_FOUND', `${JSON.stringify(requested)} cannot be opened: ${(error as Error).message}`, { cause: error });
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile() || !sameFile(opened, checked)) {
      throw new AppError('VALIDATION', `${JSON.stringify(requested)} changed while it was being opened; try again.`);
    }
    const bytes = Buffer.allocUnsafe(Math.min(Math.max(maxBytes, 0), opened.size));
    let filled = 0;
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return { bytes: bytes.subarray(0, filled), size: opened.size };
  } finally {
    closeSync(fd);
  }
}

/** The largest file `readConfinedText` reads whole. */
export const MAX_CONFINED_TEXT_BYTES = 16 * 1024 * 1024;

/**
 * The whole text of a regular file inside the repository (read as `readConfinedFile` reads), or
 * null when there is none to give: missing, refused (outside, a link out, a FIFO, a device, a
 * folder) or over `maxBytes`. For a source read that may quietly skip what it cannot read.
 */
export function readConfinedText(root: string, requested: string, maxBytes = MAX_CONFINED_TEXT_BYTES): string | null {
  try {
    const read = readConfinedFile(root, requested, maxBytes);
    return read.size > read.bytes.length ? null : read.bytes.toString('utf8');
  } catch {
    return null;
  }
}

function refuseGitDir(parts: readonly string[], shown: string): void {
  // Case-insensitively: on macOS and Windows `.GIT/config` is `.git/config`.
  if (parts.some((p) => p.toLowerCase() === '.git')) {
    throw new AppError('VALIDATION', `${shown} is inside a .git folder (git's own files); only the repository's files can be read.`);
  }
}

function realRootOf(root: string): string {
  try {
    return realpathSync(root);
  } catch (error) {
    throw new AppError('NOT_FOUND', `The repository folder ${root} does not exist any more; add it again.`, { cause: error });
  }
}

function realpathOrRefuse(path: string, shown: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    // A dangling link, or a link loop: there is nothing inside the repository to show.
    throw new AppError('NOT_FOUND', `${shown} is a broken symbolic link (or lies below one).`, { cause: error });
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
