import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/contract';
import type { Plan, PlanArtifact } from '../../../shared/contract/plans';
import { savePlan } from '../../features/plans/planStore';
import { createChatRepo } from '../../testing/chatRepo';
import type { TestRepo } from '../../testing/gitRepo';
import { createTempCore } from '../../testing/tempCore';

const temp = createTempCore();
const { core } = temp;
let repo: TestRepo;
let repoId: string;

const plan: Plan = {
  task_summary: 'Read the mail settings from the config',
  affected_files: [
    { path: 'config.py', role: 'modify', changes: [{ symbol: 'load_config', action: 'modify', description: 'Return the mail section too', depends_on: [], depended_by: ['mailer.py'] }] },
    { path: 'mailer.py', role: 'modify', changes: [{ symbol: 'send', action: 'modify', description: 'Use the mail section', depends_on: ['config.py:load_config'], depended_by: [] }] },
  ],
  execution_order: ['config.py', 'mailer.py'],
  rationale: 'The mailer needs the settings first.',
};

beforeAll(async () => {
  repo = createChatRepo();
  const added = await core.handlers['repos/add']({ path: repo.root });
  await core.runs.wait(added.runId);
  repoId = added.repo.id;
  const artifact: PlanArtifact = { id: 'p-base', repoId, task: 'mail settings', taskId: 't-1', createdAt: '2026-01-01T00:00:00.000Z', model: 'qwen3:4b', version: 1, attempts: 1, contextFiles: [], plan };
  savePlan(temp.dataDir, artifact);
}, 60_000);
afterAll(async () => {
  repo.cleanup();
  await temp.cleanup();
});

describe('editing a saved plan', () => {
  it('validates an edited plan live: shape, unknown files, cycles and the execution order', async () => {
    expect((await core.handlers['plans/validate']({ repoId, plan })).errors).toEqual([]);
    const unknownFile = { ...plan, affected_files: [...plan.affected_files, { path: 'nowhere.py', role: 'modify', changes: [{ symbol: 'x', action: 'modify', description: 'y', depends_on: [], depended_by: [] }] }], execution_order: [...plan.execution_order, 'nowhere.py'] };
    expect((await core.handlers['plans/validate']({ repoId, plan: unknownFile })).errors).toEqual([
      'affected_files[2] (nowhere.py): the file is not in the repository; use a path from the repository, or role create for a new file',
    ]);
    const cyclic = structuredClone(plan);
    cyclic.affected_files[0]!.changes[0]!.depends_on = ['mailer.py'];
    expect((await core.handlers['plans/validate']({ repoId, plan: cyclic })).errors.join('\n')).toMatch(/dependency cycle: (config\.py → mailer\.py → config\.py|mailer\.py → config\.py → mailer\.py)/);
    const reordered = { ...plan, execution_order: ['mailer.py', 'config.py'] };
    expect((await core.handlers['plans/validate']({ repoId, plan: reordered })).errors).toEqual(['execution_order puts mailer.py before config.py, but mailer.py depends on config.py']);
    expect((await core.handlers['plans/validate']({ repoId, plan: { task_summary: 'x' } })).errors[0]).toMatch(/^affected_files: /);
  });

  it('saves a valid edit as a new version and keeps the original; refuses an invalid one with its problems', async () => {
    const edited = structuredClone(plan);
    edited.affected_files[1]!.changes[0]!.description = 'Use the mail section and log the host';
    const { plan: saved } = await core.handlers['plans/save']({ repoId, planId: 'p-base', plan: edited });
    expect(saved).toMatchObject({ version: 2, editedFrom: 'p-base', task: 'mail settings', model: 'qwen3:4b' });
    expect(saved.id).not.toBe('p-base');
    expect((await core.handlers['plans/get']({ repoId, planId: saved.id })).plan.plan.affected_files[1]!.changes[0]!.description).toBe('Use the mail section and log the host');
    expect((await core.handlers['plans/get']({ repoId, planId: 'p-base' })).plan.plan).toEqual(plan);
    // Editing the original again makes version 3, not a second version 2.
    expect((await core.handlers['plans/save']({ repoId, planId: 'p-base', plan: edited })).plan.version).toBe(3);

    const before = (await core.handlers['plans/list']({ repoId })).plans.length;
    const error = await core.handlers['plans/save']({ repoId, planId: 'p-base', plan: { ...plan, execution_order: ['config.py'] } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('VALIDATION');
    expect((error as AppError).message).toContain('execution_order misses mailer.py');
    expect((await core.handlers['plans/list']({ repoId })).plans.length).toBe(before);
  });
});
