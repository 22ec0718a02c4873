import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Plan, PlanArtifact } from '../../../shared/contract';
import { useCliModelRepo } from '../testing/modelRepo';
import { type CraOutput } from '../testing/cra';

const fx = useCliModelRepo({ prefix: 'cra-cli-plan-' });

/** Run cra asynchronously (the test server answers in this process, so spawnSync would block it). */
function cra(...args: string[]): Promise<CraOutput> {
  return fx.cra(args);
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

beforeAll(() => {
  // Task analysis is answered by its prompt; plan calls take the queue.
  fx.server.script.respond = (prompt) => (prompt.startsWith('Task:') ? { json: { intent: 'validate settings', files: ['config.py'], symbols: ['load_config'], concepts: [] } } : undefined);
});

describe('cra plan', () => {
  it('prints the plan in execution order, saves it, writes --out, and lists it; --json prints the artifact', async () => {
    fx.server.script.chat.push({ json: PLAN });
    const out = join(fx.dataDir, 'plan.json');
    const first = await cra('plan', 'Validate the settings in config.py', '--repo', fx.repo.root, '--out', out);
    expect(first.stderr).toContain('plan…');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^Plan p-\S+ · qwen3:0\.6b · /);
    expect(first.stdout).toContain('1. settings_schema.py (create)\n   - add validate: Name each missing key.\n2. config.py (modify)\n   - modify load_config: Check required keys with the new validator.\n     after: settings_schema.py:validate\n3. app.py (modify)');
    expect(first.stdout).toContain('Rationale: Validation in one module keeps load_config small.');
    const saved = JSON.parse(readFileSync(out, 'utf8')) as PlanArtifact;
    expect(saved.plan).toEqual(PLAN);
    expect(first.stderr).toContain(`Saved: ${join(fx.dataDir, 'repos', saved.repoId, 'plans', `${saved.id}.json`)}`);
    expect(saved.commit).toBe(fx.repo.git('rev-parse', 'HEAD').trim());

    fx.server.script.chat.push({ json: PLAN });
    const json = await cra('plan', 'Validate the settings in config.py', '--repo', fx.repo.root, '--json');
    expect(json.status).toBe(0);
    const second = JSON.parse(json.stdout) as PlanArtifact;
    expect(second).toMatchObject({ version: 1, attempts: 1, model: 'qwen3:0.6b', plan: PLAN });

    const list = await cra('plans', 'list', '--repo', fx.repo.root, '--json');
    expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((p) => p.id).sort()).toEqual([saved.id, second.id].sort());
    const shown = await cra('plans', 'show', saved.id, '--repo', fx.repo.root);
    expect(shown.stdout).toContain('1. settings_schema.py (create)');
  }, 120_000);

  it('fails with the validation errors after an invalid plan and its invalid retry, saving nothing', async () => {
    const before = (await cra('plans', 'list', '--repo', fx.repo.root, '--json')).stdout;
    const cyclic: Plan = { ...PLAN, execution_order: ['app.py', 'config.py', 'settings_schema.py'] };
    fx.server.script.chat.push({ json: cyclic }, { json: cyclic });
    const failed = await cra('plan', 'Validate the settings in config.py', '--repo', fx.repo.root);
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain("The model's plan was invalid 2 times");
    expect(failed.stderr).toContain('execution_order puts config.py before settings_schema.py, but config.py depends on settings_schema.py');
    expect((await cra('plans', 'list', '--repo', fx.repo.root, '--json')).stdout).toBe(before);
  }, 120_000);
});
