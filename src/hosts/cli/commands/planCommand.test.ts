import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/paths';
import { createChatRepo } from '../../../core/testing/chatRepo';
import type { TestRepo } from '../../../core/testing/gitRepo';
import { OllamaTestServer } from '../../../core/testing/ollamaTestServer';
import type { Plan, PlanArtifact } from '../../../shared/contract';
import { runCra, type CraOutput } from '../testing/cra';

let server: OllamaTestServer;
let repo: TestRepo;
let dataDir: string;

/** Run cra asynchronously (the test server answers in this process, so spawnSync would block it). */
function cra(...args: string[]): Promise<CraOutput> {
  return runCra(dataDir, args);
}

/** A plan for the chat fixture (config.py, app.py): a new settings module, config.py on it, app.py last. */
const PLAN: Plan = {
  task_summary: 'Validate the settings after loading them.',
  affected_files: [
    { path: 'app.py', role: 'modify', changes: [{ symbol: 'main', action: 'modify', description: 'Report invalid settings before use.', depends_on: ['config.py:load_config'], depended_by: [] }] },
    { path: 'config.py', role: 'modify', changes: [{ symbol: 'load_config', action: 'modify', description: 'Check required keys with the new validator.', depends_on: ['settings_schema.py:validate'], depended_by: [] }] },
    { path: 'settings_schema.py', role: 'create', changes: [{ symbol: 'validate', action: 'add', description: 'Name each missing key.', depends_on: [], depended_by: [] }] },
  ],
  execution_order: ['settings_schema.py', 'config.py', 'app.py'],
  rationale: 'Validation in one module keeps load_config small.',
};

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  repo = createChatRepo();
  dataDir = mkdtempSync(join(tmpdir(), 'cra-cli-plan-'));
  writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
  expect(spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, 'index', repo.root, '--json'], { encoding: 'utf8', timeout: 120_000 }).status).toBe(0);
  // Task analysis is answered by its prompt; plan calls take the queue.
  server.script.respond = (prompt) => (prompt.startsWith('Task:') ? { json: { intent: 'validate settings', files: ['config.py'], symbols: ['load_config'], concepts: [] } } : undefined);
}, 180_000);
afterAll(async () => {
  await server.close();
  repo.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('cra plan', () => {
  it('prints the plan in execution order, saves it, writes --out, and lists it; --json prints the artifact', async () => {
    server.script.chat.push({ json: PLAN });
    const out = join(dataDir, 'plan.json');
    const first = await cra('plan', 'Validate the settings in config.py', '--repo', repo.root, '--out', out);
    expect(first.stderr).toContain('plan…');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^Plan p-\S+ · qwen3:0\.6b · /);
    expect(first.stdout).toContain('1. settings_schema.py (create)\n   - add validate: Name each missing key.\n2. config.py (modify)\n   - modify load_config: Check required keys with the new validator.\n     after: settings_schema.py:validate\n3. app.py (modify)');
    expect(first.stdout).toContain('Rationale: Validation in one module keeps load_config small.');
    const saved = JSON.parse(readFileSync(out, 'utf8')) as PlanArtifact;
    expect(saved.plan).toEqual(PLAN);
    expect(first.stderr).toContain(`Saved: ${join(dataDir, 'repos', saved.repoId, 'plans', `${saved.id}.json`)}`);
    expect(saved.commit).toBe(repo.git('rev-parse', 'HEAD').trim());

    server.script.chat.push({ json: PLAN });
    const json = await cra('plan', 'Validate the settings in config.py', '--repo', repo.root, '--json');
    expect(json.status).toBe(0);
    const second = JSON.parse(json.stdout) as PlanArtifact;
    expect(second).toMatchObject({ version: 1, attempts: 1, model: 'qwen3:0.6b', plan: PLAN });

    const list = await cra('plans', 'list', '--repo', repo.root, '--json');
    expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((p) => p.id).sort()).toEqual([saved.id, second.id].sort());
    const shown = await cra('plans', 'show', saved.id, '--repo', repo.root);
    expect(shown.stdout).toContain('1. settings_schema.py (create)');
  }, 120_000);

  it('fails with the validation errors after an invalid plan and its invalid retry, saving nothing', async () => {
    const before = (await cra('plans', 'list', '--repo', repo.root, '--json')).stdout;
    const cyclic: Plan = { ...PLAN, execution_order: ['app.py', 'config.py', 'settings_schema.py'] };
    server.script.chat.push({ json: cyclic }, { json: cyclic });
    const failed = await cra('plan', 'Validate the settings in config.py', '--repo', repo.root);
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain("The model's plan was invalid 2 times");
    expect(failed.stderr).toContain('execution_order puts config.py before settings_schema.py, but config.py depends on settings_schema.py');
    expect((await cra('plans', 'list', '--repo', repo.root, '--json')).stdout).toBe(before);
  }, 120_000);
});
