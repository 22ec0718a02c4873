/**
 * A run's change as review needs it — each file's content before and after — rebuilt from what a
 * run keeps: its base commit and its cumulative unified diff (git's format). The content before is
 * read from the base commit (not from the working tree, which the user may have changed since);
 * the content after is that content with the file's patch applied.
 */
import { applyPatch, parsePatch } from 'diff';
import { AppError } from '../../shared/contract';
import { gitText } from '../git';
import type { ChangedFile } from './hunks';

const stripPrefix = (name: string | undefined) => (name === undefined || name === '/dev/null' ? null : name.replace(/^[ab]\//, ''));

/** The content of `path` at `commit` in `repo`, or null when the commit has no such file. */
async function contentAt(repo: string, commit: string, path: string): Promise<string | null> {
  const listed = await gitText(['ls-tree', '--name-only', commit, '--', path], { cwd: repo });
  if (listed.trim() === '') return null;
  return gitText(['show', `${commit}:${path}`], { cwd: repo });
}

/**
 * The changed files of a unified diff against `baseCommit` of `repo`. A patch that does not apply
 * to the base (the diff is not of that commit) is an error naming the file. Renames come as a
 * deletion and a creation (the diff should be made with --no-renames).
 */
export async function changedFilesFromDiff(repo: string, baseCommit: string, diff: string): Promise<ChangedFile[]> {
  const files: ChangedFile[] = [];
  for (const patch of parsePatch(diff)) {
    const oldPath = stripPrefix(patch.oldFileName);
    const newPath = stripPrefix(patch.newFileName);
    const path = newPath ?? oldPath;
    if (path === null) continue;
    if (oldPath !== null && newPath !== null && oldPath !== newPath) {
      throw new AppError('UNSUPPORTED', `The diff renames ${oldPath} to ${newPath}; review needs renames as a deletion and a creation (git diff --no-renames).`);
    }
    const before = oldPath === null ? null : await contentAt(repo, baseCommit, oldPath);
    if (oldPath !== null && before === null) throw new AppError('VALIDATION', `The diff changes ${oldPath}, which commit ${baseCommit.slice(0, 12)} does not have.`);
    if (newPath === null) {
      files.push({ path, before, after: null });
      continue;
    }
    const after = patch.hunks.length === 0 ? before : applyPatch(before ?? '', patch);
    if (after === false) throw new AppError('VALIDATION', `The diff of ${path} does not apply to commit ${baseCommit.slice(0, 12)}; it was made against other content.`);
    files.push({ path, before, after: after ?? '' });
  }
  return files;
}
