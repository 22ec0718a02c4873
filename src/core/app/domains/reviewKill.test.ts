import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../createCore';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { createTempCore } from '../../testing/tempCore';
import { createReviewHandlers, type ReviewableRun } from './review';
import { repoPaths, undoFileOf } from '../../platform/layout';

/**
 * An apply of a large change killed with SIGKILL at many points (issue 22, item 2): afterwards —
 * once review has run again — either nothing or the whole change is in place, `--undo` works, and
 * no temporary file is left in the user's tree.
 */
const temp = createTempCore();
let repo: TestRepo;
let repoId: string;
let run: ReviewableRun;
let jobFile: string;
const MODIFIED = 290;
const name = (i: number) => `src/m${String(i).padStart(3, '0')}.txt`;
const original = (i: number) => `file ${i}\n${'same line\n'.repeat(5)}`;
const changed = (i: number) => `file ${i} changed\n${'same line\n'.repeat(5)}`;

beforeAll(async () => {
  repo = createTestRepo();
  for (let i = 0; i < MODIFIED; i++) repo.write(name(i), original(i));
  for (let i = 0; i < 5; i++) repo.write(`gone/g${i}.txt`, `gone ${i}\n`);
  const base = repo.commit('base');
  for (let i = 0; i < MODIFIED; i++) repo.write(name(i), changed(i));
  for (let i = 0; i < 5; i++) repo.remove(`gone/g${i}.txt`);
  for (let i = 0; i < 5; i++) repo.write(`new/n${i}.txt`, `new ${i}\n`);
  const end = repo.commit('run');
  run = { baseCommit: base, diff: repo.git('diff', '--no-renames', '--binary', base, end), steps: [] };
  repo.git('reset', '-q', '--hard', base);
  const added = await temp.core.handlers['repos/add']({ path: repo.root });
  await temp.core.runs.wait(added.runId);
  repoId = added.repo.id;
  jobFile = join(temp.dataDir, 'apply-job.json');
  const undoFile = undoFileOf(repoPaths(temp.dataDir, repoId).dir);
  writeFileSync(jobFile, JSON.stringify({ repo: repo.root, baseCommit: base, diff: run.diff, undoFile, runId: 'run-1' }));
}, 180_000);
afterAll(async () => {
  repo.cleanup();
  await temp.cleanup();
});

const review = () => createReviewHandlers(temp.core.context, async () => run);

/** Run the applying child; resolves with the signal that ended it (null: it finished). */
function applyChild(killAt: number, before: boolean): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', '..', 'testing', 'reviewApplyChild.ts'), jobFile], {
    env: { ...process.env, CRA_KILL_AT_RENAME: String(killAt), CRA_KILL_BEFORE: before ? '1' : '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code === 0 ? null : (signal ?? 'SIGTERM'))));
}

/** The tree as git sees it: every changed, added, deleted or untracked path (ignored included). */
const status = () => repo.git('status', '--porcelain', '-z', '--untracked-files=all', '--ignored').split('\0').filter(Boolean).sort();
const WHOLE = [...Array.from({ length: MODIFIED }, (_, i) => ` M ${name(i)}`), ...Array.from({ length: 5 }, (_, i) => ` D gone/g${i}.txt`), ...Array.from({ length: 5 }, (_, i) => `?? new/n${i}.txt`)].sort();

describe('an apply killed with SIGKILL', () => {
  // Renames: the journal (1), 295 files (2–296: modified and added; deletions are not renames),
  // the ledger (297), the undo record (298); killed just before or just after one of them.
  const points = [
    ...[1, 2, 3, 10, 100, 150, 200, 295, 296, 297, 298].map((n) => ({ n, before: false })),
    ...[1, 2, 3, 10, 50, 150, 250, 296, 297, 298, 299].map((n) => ({ n, before: true })),
  ];
  it(`leaves nothing or the whole change in place at each of ${points.length} points, and undo works`, async () => {
    const outcomes: string[] = [];
    for (const { n, before } of points) {
      const signal = await applyChild(n, before);
      await review()['review/get']({ repoId, runId: 'run-1' }); // the next review call finishes or rolls back
      const now = status();
      const where = `killed ${before ? 'before' : 'after'} rename ${n} (${signal ?? 'not killed'})`;
      expect(now.filter((s) => s.includes('.cra-') || s.includes('.tmp')), where).toEqual([]);
      if (now.length === 0) {
        outcomes.push('nothing');
        await expect(review()['review/undo']({ repoId }), where).rejects.toMatchObject({ code: 'NOT_FOUND' });
      } else {
        expect(now, where).toEqual(WHOLE);
        expect(readFileSync(join(repo.root, name(7)), 'utf8')).toBe(changed(7));
        outcomes.push('whole');
        const undone = await review()['review/undo']({ repoId });
        expect(undone.restored, where).toHaveLength(MODIFIED + 10);
        expect(status(), where).toEqual([]);
        expect(readFileSync(join(repo.root, name(7)), 'utf8')).toBe(original(7));
      }
    }
    // Both ends were reached: kills early in the apply left nothing, kills late finished it.
    expect(outcomes).toContain('nothing');
    expect(outcomes).toContain('whole');
  }, 600_000);

  it('is finished or rolled back when the next engine starts, before any review call; a live apply holds the lock', async () => {
    const journal = join(repoPaths(temp.dataDir, repoId).dir, 'review', 'journal.json');
    expect(await applyChild(100, false)).toBe('SIGKILL');
    expect(existsSync(journal)).toBe(true);
    expect(status().length).toBeGreaterThan(0);
    // The killed apply's lock names a process that is gone: the new engine takes it over.
    const next = createCore({ host: 'test', dataDir: temp.dataDir });
    try {
      expect(existsSync(journal)).toBe(false);
      expect(status()).toEqual([]);
    } finally {
      await next.dispose();
    }
    // A lock held by a running process refuses an apply, and nothing is written.
    const lock = join(repoPaths(temp.dataDir, repoId).dir, 'review', 'apply.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: hostname() }));
    try {
      const view = await review()['review/get']({ repoId, runId: 'run-1' });
      const all = view.files.flatMap((f) => f.hunks.map((h) => h.id));
      await expect(review()['review/apply']({ repoId, runId: 'run-1', accepted: all })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`pid ${process.ppid}`) });
      expect(status()).toEqual([]);
    } finally {
      rmSync(lock, { force: true });
    }
  }, 120_000);
});

