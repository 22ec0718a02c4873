import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunFinished } from '../../../shared/contract';
import { openRawDatabase } from '../../platform/db/raw';
import { createChatRepo } from '../../testing/chatRepo';
import type { TestRepo } from '../../testing/gitRepo';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { createTempCore } from '../../testing/tempCore';
import { repoPaths } from '../../platform/layout';

const temp = createTempCore();
const { core } = temp;
let server: OllamaTestServer;
let repo: TestRepo;

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  server.install('qwen3:1.7b');
  server.script.respond = (prompt) => (prompt.startsWith('Summarise') ? { text: 'config.py loads the JSON settings that app.py reads; mailer.py sends mail.' } : undefined);
  repo = createChatRepo();
}, 60_000);
afterAll(async () => {
  await server.close();
  repo.cleanup();
  await temp.cleanup();
});

describe('summaries domain', () => {
  it('builds the tree by itself after embedding when a model is assigned to summarize, with the calls in the repository log', async () => {
    writeFileSync(join(temp.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n\n[models.overrides]\nsummarize = "qwen3:1.7b"\n`);
    const added = await core.handlers['repos/add']({ path: repo.root });
    await core.runs.wait(added.runId);
    const repoId = added.repo.id;
    expect(await core.handlers['summaries/status']({ repoId })).toMatchObject({ levels: [], builtAt: null, automatic: true });

    const summarized = new Promise<RunFinished>((resolve) => {
      const stop = core.events.on('run/finished', (f) => {
        if (f.kind === 'summarize') {
          stop();
          resolve(f);
        }
      });
    });
    const { runId } = await core.handlers['search/embed']({ repoId });
    await core.runs.wait(runId);
    const finished = await summarized;
    expect(finished).toMatchObject({ status: 'done', result: { summarized: 1, reused: 0, levels: [{ level: 1, summaries: 1 }] } });
    const status = await core.handlers['summaries/status']({ repoId });
    expect(status).toMatchObject({ levels: [{ level: 1, summaries: 1 }], embedderId: expect.any(String), automatic: true });
    const call = server.requests.find((r) => r.path === '/api/chat' && (r.body as { model: string }).model === 'qwen3:1.7b');
    expect(call).toBeDefined();
    const raw = openRawDatabase(repoPaths(temp.dataDir, repoId).raw);
    expect(raw.prepare("select count(*) from model_calls where stage = 'summarize' and run_id = ?").pluck().get(finished.runId)).toBe(1);
    raw.close();

    // A second build reuses the summary: no new model call.
    const before = server.requests.length;
    const again = await core.handlers['summaries/build']({ repoId });
    expect(await core.runs.wait(again.runId)).toMatchObject({ summarized: 0, reused: 1 });
    expect(server.requests.length).toBe(before);
  }, 120_000);
});
