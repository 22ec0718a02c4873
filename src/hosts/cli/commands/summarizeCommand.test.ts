import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatRepo } from '../../../core/testing/chatRepo';
import type { TestRepo } from '../../../core/testing/gitRepo';
import { OllamaTestServer } from '../../../core/testing/ollamaTestServer';
import { runCra } from '../testing/cra';

let server: OllamaTestServer;
let repo: TestRepo;
let dataDir: string;

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  server.script.respond = (prompt) => (prompt.startsWith('Summarise') ? { text: '<think>settings</think>The app reads JSON settings; mail goes out over SMTP.' } : undefined);
  repo = createChatRepo();
  dataDir = mkdtempSync(join(tmpdir(), 'cra-summarize-cli-'));
  writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
}, 60_000);
afterAll(async () => {
  await server.close();
  repo.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('cra summarize', () => {
  it('asks for vectors first, then builds the tree and keeps it on a second run', async () => {
    expect((await runCra(dataDir, ['index', repo.root])).status).toBe(0);
    const early = await runCra(dataDir, ['summarize', repo.root]);
    expect(early.status).toBe(1);
    expect(early.stderr).toMatch(/cra: error: The index has no vectors for .*Embed the repository first/);

    expect((await runCra(dataDir, ['embed', repo.root])).status).toBe(0);
    const built = await runCra(dataDir, ['summarize', repo.root]);
    expect(built.stdout).toBe('level 1: 1 summary\n1 written by the model, 0 kept from the last build.\n');
    expect(built.stderr).toMatch(/^level 1: [01]\/1 clusters$/m);
    const again = await runCra(dataDir, ['summarize', repo.root, '--json']);
    expect(JSON.parse(again.stdout)).toEqual({ levels: [{ level: 1, summaries: 1 }], summarized: 0, reused: 1 });
  }, 120_000);
});
