/**
 * Reading a file a user or a request named by path (a training plan, an evaluation tasks file):
 * the one way such a path is read. A path from outside can name anything — `/dev/zero` (endless
 * bytes: reading it whole ends the process), a FIFO (an open blocks until a writer comes: the
 * whole engine freezes), a folder, a 10 GB log — so the thing at the path is checked to be a
 * regular file before it is opened, opened without blocking, checked again once open, and read
 * only up to a size limit. Errors name the path and what is wrong with it, never its content.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { AppError } from '../../../shared/contract';

/** How to read a user-named file, and what to call it in an error. */
export interface UserFileOptions {
  /** What the file should be, for messages ("training plan", "tasks file"). */
  what: string;
  /** The largest file accepted; a bigger one is refused, not cut. */
  maxBytes: number;
  /** What to do instead, appended to every error ("give the file cra train-plan wrote"). */
  fix: string;
}

/** What a non-regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

const size = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`);

/**
 * Read a regular file named by a user or a request, at most `maxBytes` long. Refused with
 * NOT_FOUND when nothing is there (or it cannot be opened), with VALIDATION when it is a folder,
 * a device, a FIFO or a socket, or when it is bigger than `maxBytes`. A symbolic link to a regular
 * file is followed (the user named it); the file opened is checked to be the one that was checked,
 * so a FIFO swapped in between is refused rather than read.
 */
export function readUserFile(file: string, options: UserFileOptions): Buffer {
  const shown = JSON.stringify(file);
  const fail = (code: 'NOT_FOUND' | 'VALIDATION', problem: string, cause?: unknown) => new AppError(code, `The ${options.what} ${shown} ${problem}; ${options.fix}.`, cause === undefined ? {} : { cause });
  if (file.includes('\0')) throw fail('VALIDATION', 'contains a NUL byte');
  let checked: Stats;
  try {
    checked = statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw fail('NOT_FOUND', code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be read (${code ?? 'unknown error'})`, error);
  }
  if (!checked.isFile()) throw fail('VALIDATION', `is ${kindOf(checked)}, not a file`);
  if (checked.size > options.maxBytes) throw fail('VALIDATION', `is ${size(checked.size)}; a ${options.what} is at most ${size(options.maxBytes)}`);
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO swapped in after the check must not block the open; O_NOCTTY: nor a terminal become ours.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    throw fail('NOT_FOUND', `cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`, error);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile() || opened.dev !== checked.dev || opened.ino !== checked.ino) throw fail('VALIDATION', 'changed while it was being opened');
    if (opened.size > options.maxBytes) throw fail('VALIDATION', `is ${size(opened.size)}; a ${options.what} is at most ${size(options.maxBytes)}`);
    // Read to the end, not to the size seen: a file that grew past the limit since the check is refused, not cut.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, options.maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, total);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (total > options.maxBytes) throw fail('VALIDATION', `grew past ${size(options.maxBytes)} while it was read; a ${options.what} is at most that`);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}
