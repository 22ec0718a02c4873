/**
 * The one reader of `git diff` hunks for the data path (eval's gold lines, the training export):
 * which old-side lines a commit changed, and the identifiers of its added and removed lines.
 * Review's byte-exact path (review/fromDiff.ts) lets git itself apply a diff instead, and a model's
 * reply is read by edits/unifiedDiff.ts.
 */
import { gitText } from './run';

/**
 * Old-side lines a hunk changed (1-based, inclusive). A pure insertion (`@@ -a,0 …`: new lines
 * after old line a) is recorded as the two lines around the gap, `a..a+1` (`1..1` at the top of
 * the file), with `insertedAfter: a`, so a reader can tell it from a two-line change.
 */
export interface ChangedRange {
  start: number;
  end: number;
  /** Set on a pure insertion: the old line the new lines follow (0: the top of the file). */
  insertedAfter?: number;
}

/** Path (old side) → the ranges its hunks changed there. */
export type ChangedLines = Map<string, ChangedRange[]>;

/** Read `git diff -U0` output: each old-side file's hunk ranges. A created file (`--- /dev/null`) has none. */
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
    const range = count === 0 ? { start: Math.max(1, start), end: start + 1, insertedAfter: start } : { start, end: start + count - 1 };
    out.set(path, [...(out.get(path) ?? []), range]);
  }
  return out;
}

/** The old-side ranges each of `paths` changed between `parent` and `commit` (git diff, no context lines, no renames). */
export async function changedLines(repoPath: string, parent: string, commit: string, paths: readonly string[], signal?: AbortSignal): Promise<ChangedLines> {
  if (paths.length === 0) return new Map();
  const diff = await gitText(['diff', '-U0', '--no-renames', '--no-color', '--no-ext-diff', parent, commit, '--', ...paths], { cwd: repoPath, signal });
  return parseHunks(diff);
}

/**
 * Whether a changed range touches a symbol's lines: a changed line inside them, or an insertion
 * strictly inside its body (after its first line and before its last), not one just before or after it.
 */
export function touches(range: ChangedRange, symbol: { startLine: number; endLine: number }): boolean {
  if (range.insertedAfter !== undefined) return symbol.startLine <= range.insertedAfter && range.insertedAfter < symbol.endLine;
  return range.start <= symbol.endLine && range.end >= symbol.startLine;
}

/** The identifiers of a diff's added and removed lines (not its headers, not the context); `bare`: those not right after a dot. */
export function diffIdentifiers(diff: string): { all: Set<string>; bare: Set<string> } {
  const all = new Set<string>();
  const bare = new Set<string>();
  for (const line of diff.split('\n')) {
    if (!/^[-+]/.test(line) || line.startsWith('+++') || line.startsWith('---')) continue;
    const text = line.slice(1);
    for (const m of text.matchAll(/[A-Za-z_$][\w$]*/g)) {
      all.add(m[0]);
      if (text[(m.index ?? 0) - 1] !== '.') bare.add(m[0]);
    }
  }
  return { all, bare };
}
