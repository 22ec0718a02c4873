import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildShopRepo } from '../../../core/testing/bootstrapFixture';
import { startGgufServer } from '../../../core/testing/ggufServer';
import { OllamaTestServer } from '../../../core/testing/ollamaTestServer';
import { REAL_GGUF_BYTES, realGgufPath } from '../../../core/testing/realGguf';
import { runCra } from '../testing/cra';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
/** No Ollama anywhere: nothing on PATH but node's folder, a closed port. */
const NO_OLLAMA = { OLLAMA_HOST: 'http://127.0.0.1:9', PATH: join(process.execPath, '..'), CRA_LLAMA_THREADS: '1' };

describe('cra setup and cra models check', () => {
  it('cra setup proposes the built-in models without changing anything; --yes downloads and assigns them', async () => {
    const server = await startGgufServer(readFileSync(realGgufPath()));
    cleanups.push(() => server.close());
    const data = tempDir('cra-setup-');
    const env = { ...NO_OLLAMA, HF_ENDPOINT: server.url.replace(/\/model\.gguf$/, '') };

    const asked = await runCra(data, ['setup'], env);
    expect(asked.stderr).toBe('');
    expect(asked.status).toBe(0);
    expect(asked.stdout).toContain('Ollama: unreachable (http://127.0.0.1:9)');
    expect(asked.stdout).toContain('Proposed (built-in runtime):');
    expect(asked.stdout).toMatch(/ {2}qwen3-4b-q4_k_m +1\.2 MB +plan, chat\n/);
    expect(asked.stdout).toContain('Download 5.9 MB;');
    expect(asked.stdout).toContain('Nothing was changed. Run `cra setup --yes` to download and assign them.\n');
    expect(() => readFileSync(join(data, 'config.toml'))).toThrow();

    const done = await runCra(data, ['setup', '--yes'], env);
    expect(done.status).toBe(0);
    expect(done.stdout).toContain('Downloaded 5 model(s); assigned 12 stages.');
    expect(readFileSync(join(data, 'config.toml'), 'utf8')).toContain('\nprovider = "builtin"\n');
    const listed = await runCra(data, ['models', 'list', '--json'], env);
    expect((JSON.parse(listed.stdout) as Array<{ name: string; sizeBytes: number }>).map((m) => m.sizeBytes)).toEqual(Array(5).fill(REAL_GGUF_BYTES));
    const again = await runCra(data, ['setup'], env);
    expect(again.stdout).toContain('Every stage has a working model.');
    expect(again.stdout).toMatch(/qwen3-4b-q4_k_m +on disk/);
  }, 180_000);

  it('cra models check prints the figures of each judging stage; --json gives them whole', async () => {
    const server = await OllamaTestServer.start();
    cleanups.push(() => server.close());
    server.install('qwen3:0.6b');
    server.script.respond = (prompt) => (prompt.startsWith('Task:') ? { json: { answer: 'yes' } } : undefined);
    const data = tempDir('cra-check-');
    const shop = buildShopRepo(join(data, 'shop'));
    writeFileSync(join(data, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
    const out = await runCra(data, ['models', 'check', '--repo', shop, '--n', '4']);
    expect(out.status).toBe(0);
    // A judge that says yes to everything: right on the 2 yes labels of 4, balanced accuracy 50%.
    // The plan stage gets the same {"answer": "yes"} object: not a plan, so no valid plan of the 3 tasks.
    expect(out.stdout).toMatch(/^STAGE +MODEL +N +ACCURACY +BALANCED +AUC +VALID PLANS +UNUSABLE +P50 +TOKENS\/S\nscope +qwen3:0\.6b +4 +50% +50% +0\.500 +— +0% +\d+ ms +[\d.]+\nprecision +qwen3:0\.6b +4 +50% +50% +0\.500 +— +0% +\d+ ms +[\d.]+\nplan +qwen3:0\.6b +3 +— +— +— +0% +100% /);
    const json = await runCra(data, ['models', 'check', '--repo', shop, '--stage', 'scope', '--n', '4', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ stage: 'scope', model: 'qwen3:0.6b', n: 4, positives: 2, accuracy: 0.5 })]);
    const bad = await runCra(data, ['models', 'check', '--stage', 'chat']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('"chat" cannot be checked; use scope, precision or plan.');
  }, 180_000);
});
