/**
 * Test support: a process that applies a whole run's change (every hunk) to a repository, and
 * kills itself with SIGKILL at the n-th rename it makes (`CRA_KILL_AT_RENAME`; `CRA_KILL_BEFORE=1`:
 * just before that rename, else just after). Renames are where an apply replaces files and writes
 * its records, so each n is a different point of a real apply. Argument: a JSON job file
 * `{ repo, baseCommit, diff, undoFile, runId }`.
 */
import type * as Fs from 'node:fs';
import { applyReviewed } from '../features/review/apply';
import { changedFilesFromDiff } from '../features/review/fromDiff';
import { reviewFiles } from '../features/review/hunks';

// The module object itself (an `import *` namespace is a copy): what apply.ts calls through.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs') as typeof Fs;
const job = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as { repo: string; baseCommit: string; diff: string; undoFile: string; runId: string };
const killAt = Number(process.env.CRA_KILL_AT_RENAME ?? 0);
const before = process.env.CRA_KILL_BEFORE === '1';
let renames = 0;
const rename = fs.renameSync;
fs.renameSync = (from, to) => {
  renames++;
  if (renames === killAt && before) process.kill(process.pid, 'SIGKILL');
  rename(from, to);
  if (renames === killAt && !before) process.kill(process.pid, 'SIGKILL');
};

void (async () => {
  const files = await changedFilesFromDiff(job.repo, job.baseCommit, job.diff);
  const accepted = reviewFiles(files).flatMap((f) => f.hunks.map((h) => h.id));
  const result = await applyReviewed({ repo: job.repo, files, accepted, undoFile: job.undoFile, runId: job.runId });
  process.stdout.write(`${JSON.stringify({ written: result.written.length, renames })}\n`);
})();
