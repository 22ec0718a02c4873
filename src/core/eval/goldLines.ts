import { gitText } from '../git';

/** Lines of a gold file that its commit changed, on the parent's side (1-based, inclusive). */
export interface ChangedRange {
  start: number;
  end: number;
}

/** Gold path → the parent-side line ranges the task's commit changed there. */
export type ChangedLines = Map<string, ChangedRange[]>;

/**
 * Read `git diff -U0` hunk headers: `@@ -a,n +b,m @@` changes n lines from line a of the old
 * side; n = 0 is an insertion after line a, recorded as the two lines around the gap (a, a+1) so
 * the symbol the new code goes into is the one touched.
 */
export function parseHunks(diff: string): ChangedLines {
  const out: ChangedLines = new Map();
  let path: string | undefined;
  for (const line of diff.split('\n')) {
    const file = /^--- (?:a\/(.*)|\/dev\/null)$/.exec(line);
    if (file) {
      path = file[1];
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (!hunk || path === undefined) continue;
    const start = Number(hunk[1]);
    const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
    const range = count === 0 ? { start: Math.max(1, start), end: start + 1 } : { start, end: start + count - 1 };
    out.set(path, [...(out.get(path) ?? []), range]);
  }
  return out;
}

/** The parent-side ranges each gold file's commit changed (git diff parent..commit, no context lines). */
export async function changedLines(repoPath: string, parent: string, commit: string, gold: readonly string[], signal?: AbortSignal): Promise<ChangedLines> {
  if (gold.length === 0) return new Map();
  const diff = await gitText(['diff', '-U0', '--no-renames', '--no-color', '--no-ext-diff', parent, commit, '--', ...gold], { cwd: repoPath, signal });
  return parseHunks(diff);
}
