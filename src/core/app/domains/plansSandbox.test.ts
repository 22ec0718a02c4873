import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../features/plans/sandbox';
import { createChatRepo } from '../../testing/chatRepo';
import type { TestRepo } from '../../testing/gitRepo';
import { createTempCore } from '../../testing/tempCore';

const temp = createTempCore();
let repo: TestRepo;
let repoId: string;
const sandbox = await detectSandbox();

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

const config = (body: string) => writeFileSync(join(temp.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\n${body}`);

describe('plans/sandbox: where validation would run', () => {
  it('says nothing runs when the repository has no validation commands', async () => {
    config('');
    expect(await temp.core.handlers['plans/sandbox']({ repoId })).toMatchObject({ commandsConfigured: false, wouldRefuse: false, allowUnsandboxed: false });
  });

  it.skipIf(!sandbox)('names the sandbox commands run in (bubblewrap here) and refuses nothing', async () => {
    config(`[validation.${repoId}]\ntest = "sh ./run.sh"\n`);
    const status = await temp.core.handlers['plans/sandbox']({ repoId });
    expect(status).toMatchObject({ sandbox: sandbox!.kind, commandsConfigured: true, wouldRefuse: false });
    expect(status.message).toMatch(/only the run's own copy is writable, with no network/);
  });

  it('reports the consent from the user-level config', async () => {
    config(`[sandbox]\nallow_unsandboxed_validation = true\n[validation.${repoId}]\ntest = "true"\n`);
    expect(await temp.core.handlers['plans/sandbox']({ repoId })).toMatchObject({ commandsConfigured: true, allowUnsandboxed: true, wouldRefuse: false });
  });
});
