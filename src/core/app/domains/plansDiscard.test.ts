import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRawDatabase } from '../../platform/db/raw';
import { SolveRecords } from '../../features/plans/solveRecords';
import { SqliteSolveSession, solveSessionFile } from '../../features/plans/solveSession';
import { createChatRepo } from '../../testing/chatRepo';
import type { TestRepo } from '../../testing/gitRepo';
import { createTempCore } from '../../testing/tempCore';
import { repoPaths } from '../../platform/layout';

const temp = createTempCore();
let repo: TestRepo;
let repoId: string;

/** A run as a cancelled (or completed) one leaves it: its row, and for a cancelled one its session. */
function recordRun(id: string, status: 'cancelled' | 'complete'): string {
  const paths = repoPaths(temp.dataDir, repoId);
  const raw = openRawDatabase(paths.raw);
  try {
    const records = new SolveRecords(raw);
    const head = repo.git('rev-parse', 'HEAD').trim();
    records.createRun({ id, repoId, task: 'a task', mode: 'orchestrated', taskRunId: id, base: { commit: head, dirty: {} }, startCommit: head, worktreePath: '/nowhere', input: {} });
    records.finishRun(id, { status, cumulativeDiff: '' });
    const file = solveSessionFile(paths.sessions, id);
    if (status === 'cancelled') {
      const session = SqliteSolveSession.open(file);
      session.set('meta_plan', { parts: [] });
      session.close();
    }
    return file;
  } finally {
    raw.close();
  }
}

beforeAll(async () => {
  repo = createChatRepo();
  const added = await temp.core.handlers['repos/add']({ path: repo.root });
  await temp.core.runs.wait(added.runId);
  repoId = added.repo.id;
}, 60_000);
afterAll(async () => {
  repo.cleanup();
  await temp.cleanup();
});

describe('discarding a solve run', () => {
  it('ends a cancelled run for good: its session archived, no resume; a finished run is refused', async () => {
    const session = recordRun('r-cancelled', 'cancelled');
    expect(existsSync(session)).toBe(true);
    expect(await temp.core.handlers['plans/discardRun']({ repoId, solveRunId: 'r-cancelled' })).toEqual({ solveRunId: 'r-cancelled' });
    expect(existsSync(session)).toBe(false);
    const { run } = await temp.core.handlers['plans/getRun']({ repoId, solveRunId: 'r-cancelled' });
    expect(run.status).toBe('discarded');
    const raw = openRawDatabase(repoPaths(temp.dataDir, repoId).raw);
    expect(raw.prepare("select count(*) from session_archives where run_id = 'r-cancelled'").pluck().get()).toBe(1);
    raw.close();
    await expect(temp.core.handlers['plans/discardRun']({ repoId, solveRunId: 'r-cancelled' })).rejects.toThrow(/is discarded; only a cancelled or interrupted run can be discarded/);

    recordRun('r-done', 'complete');
    await expect(temp.core.handlers['plans/discardRun']({ repoId, solveRunId: 'r-done' })).rejects.toThrow(/is complete; only a cancelled or interrupted run/);
    await expect(temp.core.handlers['plans/discardRun']({ repoId, solveRunId: 'r-none' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
