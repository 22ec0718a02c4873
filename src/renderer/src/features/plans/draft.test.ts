import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../../shared/contract/plans';
import { planDraft } from './draft';

const plan: Plan = {
  task_summary: 'Mail settings',
  affected_files: [
    { path: 'config.py', role: 'modify', changes: [{ symbol: 'load_config', action: 'modify', description: 'Return mail', depends_on: [], depended_by: [] }] },
    { path: 'mailer.py', role: 'modify', changes: [{ symbol: 'send', action: 'modify', description: 'Use mail', depends_on: ['config.py:load_config'], depended_by: [] }] },
  ],
  execution_order: ['config.py', 'mailer.py'],
  rationale: 'Settings first.',
};

describe('plan editor drafts', () => {
  it('adds and removes files, keeping the order and the references in step', () => {
    const added = planDraft.addFile(plan, ' cli.py ');
    expect(added.execution_order).toEqual(['config.py', 'mailer.py', 'cli.py']);
    expect(added.affected_files[2]).toMatchObject({ path: 'cli.py', role: 'modify', changes: [{ symbol: '', action: 'modify' }] });
    const removed = planDraft.removeFile(added, 0);
    expect(removed.execution_order).toEqual(['mailer.py', 'cli.py']);
    expect(removed.affected_files[0]!.changes[0]!.depends_on).toEqual([]);
    expect(plan.affected_files).toHaveLength(2); // never mutated
  });

  it('renames a file everywhere it is named', () => {
    const renamed = planDraft.setFile(plan, 0, { path: 'settings.py' });
    expect(renamed.execution_order).toEqual(['settings.py', 'mailer.py']);
    expect(renamed.affected_files[1]!.changes[0]!.depends_on).toEqual(['settings.py:load_config']);
  });

  it('reorders the execution order, clamped at the ends', () => {
    expect(planDraft.moveInOrder(plan, 1, -1).execution_order).toEqual(['mailer.py', 'config.py']);
    expect(planDraft.moveInOrder(plan, 0, -1)).toBe(plan);
    expect(planDraft.moveInOrder(plan, 0, 5).execution_order).toEqual(['mailer.py', 'config.py']);
  });

  it('adds and removes dependency edges as the engine reads them', () => {
    expect(planDraft.edges(plan)).toEqual([{ before: 'config.py', after: 'mailer.py' }]);
    const reversed = planDraft.addEdge(planDraft.removeEdge(plan, 'mailer.py', 'config.py'), 'config.py', 'mailer.py');
    expect(planDraft.edges(reversed)).toEqual([{ before: 'mailer.py', after: 'config.py' }]);
    expect(planDraft.addEdge(plan, 'mailer.py', 'config.py')).toBe(plan); // already there
    const byDepended = { ...plan, affected_files: [plan.affected_files[0]!, { ...plan.affected_files[1]!, changes: [{ ...plan.affected_files[1]!.changes[0]!, depends_on: [] }] }] };
    byDepended.affected_files[0] = { ...byDepended.affected_files[0]!, changes: [{ ...byDepended.affected_files[0]!.changes[0]!, depended_by: ['mailer.py'] }] };
    expect(planDraft.edges(byDepended)).toEqual([{ before: 'config.py', after: 'mailer.py' }]);
    expect(planDraft.edges(planDraft.removeEdge(byDepended, 'mailer.py', 'config.py'))).toEqual([]);
  });
});
