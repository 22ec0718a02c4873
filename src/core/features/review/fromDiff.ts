/**
 * A run's change as review needs it — each file's bytes before and after, and its modes — rebuilt
 * from what a run keeps: its base commit and its cumulative diff (git's format, binary patches
 * included). git itself applies the diff, in a scratch index whose new objects go to a scratch
 * folder (the user's objects are only read, through git's alternates), and checks both sides out
 * into scratch folders: so the bytes are git's own, in the working tree's form (eol conversion
 * of `eol=crlf` or `core.autocrlf` applied), and every path is read NUL-separated. The content
 * before is the base commit's (not the working tree's, which the user may have changed since).
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../../shared/contract';
import { GitError, gitText, runGit } from '../../platform/git';
import type { ChangedFile } from './hunks';

/** One line of `git diff-index --raw -z`. */
interface RawEntry {
  path: string;
  oldMode: string | null;
  newMode: string | null;
}

/** Parse `--raw -z` output: `:<old mode> <new mode> <old sha> <new sha> <status>\0<path>\0` per file (no renames). */
export function parseRawZ(out: Buffer): RawEntry[] {
  const fields = out.toString('utf8').split('\0');
  const entries: RawEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i]!.replace(/^:/, '').split(' ');
    const mode = (m: string | undefined) => (m === undefined || /^0+$/.test(m) ? null : m);
    entries.push({ path: fields[i + 1]!, oldMode: mode(meta[0]), newMode: mode(meta[1]) });
  }
  return entries;
}

/** Kinds of entry review cannot write as a file: a symbolic link, a submodule. */
function refuseSpecial(entry: RawEntry): void {
  for (const mode of [entry.oldMode, entry.newMode]) {
    if (mode === '120000') throw new AppError('UNSUPPORTED', `The run's change makes or changes the symbolic link ${entry.path}; review writes regular files only. Apply that part by hand (git apply).`);
    if (mode === '160000') throw new AppError('UNSUPPORTED', `The run's change touches the submodule ${entry.path}; review writes regular files only.`);
  }
}

/**
 * The changed files of a diff against `baseCommit` of `repo`, sorted by path. A diff that does not
 * apply to the base is an error naming the file. Renames come as a deletion and a creation.
 */
export async function changedFilesFromDiff(repo: string, baseCommit: string, diff: string | Buffer): Promise<ChangedFile[]> {
  if (diff.length === 0) return [];
  const scratch = mkdtempSync(join(tmpdir(), 'cra-review-'));
  try {
    mkdirSync(join(scratch, 'objects'));
    const objects = (await gitText(['rev-parse', '--path-format=absolute', '--git-path', 'objects'], { cwd: repo })).trim();
    const env = (index: string) => ({ GIT_INDEX_FILE: join(scratch, `${index}.index`), GIT_OBJECT_DIRECTORY: join(scratch, 'objects'), GIT_ALTERNATE_OBJECT_DIRECTORIES: objects });
    await runGit(['read-tree', baseCommit], { cwd: repo, env: env('before') });
    await runGit(['read-tree', baseCommit], { cwd: repo, env: env('after') });
    await runGit(['apply', '--cached', '--binary', '-'], { cwd: repo, env: env('after'), input: diff }).catch((error: unknown) => {
      const stderr = error instanceof GitError ? error.stderr : '';
      const path = /error: (.+): patch does not apply/.exec(stderr)?.[1] ?? /error: (.+): does not exist in index/.exec(stderr)?.[1];
      throw new AppError('VALIDATION', `The diff${path ? ` of ${path}` : ''} does not apply to commit ${baseCommit.slice(0, 12)}; it was made against other content.`, { cause: error });
    });
    const entries = parseRawZ(await runGit(['diff-index', '--cached', '--raw', '-z', '--no-renames', '--full-index', baseCommit], { cwd: repo, env: env('after') }));
    entries.forEach(refuseSpecial);
    const checkout = async (side: 'before' | 'after', paths: string[]) => {
      if (paths.length === 0) return;
      await runGit(['checkout-index', '-z', '--stdin', `--prefix=${join(scratch, side)}/`], { cwd: repo, env: env(side), input: paths.map((p) => `${p}\0`).join('') });
    };
    await checkout('before', entries.filter((e) => e.oldMode !== null).map((e) => e.path));
    await checkout('after', entries.filter((e) => e.newMode !== null).map((e) => e.path));
    const read = (side: 'before' | 'after', entry: RawEntry): Buffer | null => {
      if ((side === 'before' ? entry.oldMode : entry.newMode) === null) return null;
      const file = join(scratch, side, entry.path);
      if (!lstatSync(file).isFile()) throw new AppError('UNSUPPORTED', `${entry.path} is not a regular file in the run's change; review writes regular files only.`);
      return readFileSync(file);
    };
    return entries
      .map((e) => ({ path: e.path, before: read('before', e), after: read('after', e), beforeMode: e.oldMode, afterMode: e.newMode }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
