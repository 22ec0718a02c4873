import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, type IndexSummary } from '../../../shared/contract';
import type { Core } from '../../app/createCore';
import { openDatabase } from '../db/open';
import { throwIfAborted } from '../runtime/runs';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { createTempCore } from '../../testing/tempCore';
import { repoPaths } from '../layout';

let server: OllamaTestServer;
let env: ReturnType<typeof createTempCore>;
let core: Core;
let repo: TestRepo;

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  env = createTempCore();
  core = env.core;
  await core.handlers['config/init']({});
  await core.handlers['config/set']({ edits: [{ path: ['models', 'base_url'], value: server.url }] });
  repo = createTestRepo();
  repo.writeFiles({ 'src/app.py': 'def main():\n    return 1\n' });
  repo.commit('first');
});
afterAll(async () => {
  await env.cleanup();
  await server.close();
  repo.cleanup();
});

type Row = Record<string, unknown>;

/** The task_runs row of a run, read from a raw DB file on disk (a second connection, as another process would). */
function runRow(file: string, runId: string): Row | undefined {
  const db = openDatabase(file, { readOnly: true });
  try {
    return db.prepare('select * from task_runs where id = ?').get(runId) as Row | undefined;
  } finally {
    db.close();
  }
}

const userRaw = () => join(env.dataDir, 'raw.sqlite');

describe('runs recorded in the raw log (task_runs)', () => {
  it('writes a row when a run starts and its end when it ends well, with subject and result', async () => {
    let during: Row | undefined;
    const { runId, done } = core.runs.start('pull', 'Pull m', async () => {
      during = runRow(userRaw(), runId);
      return { model: 'm' };
    }, { model: 'm' });
    await done;
    expect(during).toMatchObject({ id: runId, mode: 'pull', title: 'Pull m', status: 'running', finished_at: null, success: null });
    const row = runRow(userRaw(), runId);
    expect(row).toMatchObject({ mode: 'pull', status: 'done', success: 1, error: null, error_code: null });
    expect(JSON.parse(String(row?.subject_json))).toEqual({ model: 'm' });
    expect(JSON.parse(String(row?.result_json))).toEqual({ model: 'm' });
    expect(Date.parse(String(row?.finished_at))).toBeGreaterThanOrEqual(Date.parse(String(row?.started_at)));
  });

  it('records a failed run with its error code and message, and a cancelled one', async () => {
    const failed = core.runs.start('pull', 'Pull broken', async () => {
      throw new AppError('OLLAMA_UNREACHABLE', 'No server at 127.0.0.1:1.');
    }, { model: 'broken' });
    await expect(failed.done).rejects.toMatchObject({ code: 'OLLAMA_UNREACHABLE' });
    expect(runRow(userRaw(), failed.runId)).toMatchObject({ status: 'failed', success: 0, error_code: 'OLLAMA_UNREACHABLE', error: 'No server at 127.0.0.1:1.', result_json: null });

    const cancelled = core.runs.start('pull', 'Pull slow', async ({ signal }) => {
      for (;;) {
        throwIfAborted(signal);
        await new Promise((r) => setTimeout(r, 5));
      }
    }, { model: 'slow' });
    await new Promise((r) => setTimeout(r, 20));
    core.runs.cancel(cancelled.runId);
    await expect(cancelled.done).rejects.toMatchObject({ code: 'CANCELLED' });
    const row = runRow(userRaw(), cancelled.runId);
    expect(row).toMatchObject({ status: 'cancelled', success: 0, error_code: null, result_json: null });
    expect(row?.finished_at).toEqual(expect.any(String));
  });

  it("records a repository's index run in that repository's raw DB, not the user-level one", async () => {
    const { repo: added, runId } = await core.handlers['repos/add']({ path: repo.root });
    const summary: IndexSummary = await core.runs.wait(runId, 'index');
    const row = runRow(repoPaths(env.dataDir, added.id).raw, runId);
    expect(row).toMatchObject({ mode: 'index', status: 'done', title: `Index ${added.name}` });
    expect(JSON.parse(String(row?.subject_json))).toEqual({ repoId: added.id });
    expect(JSON.parse(String(row?.result_json))).toMatchObject({ files: summary.files, parsed: summary.parsed });
    expect(runRow(userRaw(), runId)).toBeUndefined();
  });

  it('logs model calls made inside a run with its id, beside its row, and logs/list shows the run with its calls', async () => {
    const outside = await core.handlers['models/test']({ model: 'qwen3:0.6b', prompt: 'outside any run' });
    expect(outside.text).toEqual(expect.any(String));
    const { runId, done } = core.runs.start('pull', 'Pull with a call', async () => {
      await core.handlers['models/test']({ model: 'qwen3:0.6b', prompt: 'inside a run' });
      return { model: 'qwen3:0.6b' };
    }, { model: 'qwen3:0.6b' });
    await done;
    const page = await core.handlers['logs/list']({ runId, errorsOnly: false, limit: 50, offset: 0 });
    expect(page.calls).toHaveLength(1);
    expect(page.calls[0]).toMatchObject({ runId, stage: 'test', model: 'qwen3:0.6b' });
    expect(page.run).toMatchObject({ runId, kind: 'pull', title: 'Pull with a call', status: 'done', subject: { model: 'qwen3:0.6b' }, error: null });
    // The call made outside has no run.
    const all = await core.handlers['logs/list']({ errorsOnly: false, limit: 50, offset: 0 });
    expect(all.calls.filter((c) => c.runId === null)).toHaveLength(1);
    expect(all.run).toBeUndefined();
  });

  it("logs the calls of a repository's run in that repository's raw DB", async () => {
    const added = (await core.handlers['repos/list']({})).find((r) => r.path === repo.root);
    if (!added) throw new Error('the previous test adds the repository');
    const { runId, done } = core.runs.start('index', 'Index with a call', async () => {
      await core.handlers['models/test']({ model: 'qwen3:0.6b', prompt: 'inside a repository run' });
      throw new AppError('INTERNAL', 'stopped on purpose');
    }, { repoId: added.id });
    await expect(done).rejects.toThrow('stopped on purpose');
    const page = await core.handlers['logs/list']({ repoId: added.id, runId, errorsOnly: false, limit: 50, offset: 0 });
    expect(page.calls.map((c) => c.runId)).toEqual([runId]);
    expect(page.run).toMatchObject({ runId, kind: 'index', status: 'failed', error: { code: 'INTERNAL', message: 'stopped on purpose' } });
    expect((await core.handlers['logs/list']({ runId, errorsOnly: false, limit: 50, offset: 0 })).calls).toHaveLength(0);
  });
});
