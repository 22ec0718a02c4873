import { describe, expect, it } from 'vitest';
import type { MetaPlan, PlanStep } from '../../../shared/contract/plansRuns';
import { adjustmentChanges, checkAdjustment, checkMetaPlan, checkPartPlan, partOrder } from './solveChecks';

const part = (id: string, depends_on: string[] = []) => ({ id, title: id, description: id, files: [], depends_on });
const step = (id: string, description = id): PlanStep => ({ id, description, files: [], expected_outcome: '' });

describe('orchestrator checks', () => {
  it('orders parts after their dependencies, otherwise as listed', () => {
    const order = partOrder([part('c', ['b']), part('a'), part('b', ['a'])]);
    expect(order.ok && order.order.map((p) => p.id)).toEqual(['a', 'b', 'c']);
  });

  it('names every problem of a meta-plan: the [orchestrator] limit, duplicate ids, unknown and self edges, cycles', () => {
    const plan: MetaPlan = { task_summary: 't', parts: [part('a', ['a']), part('a'), part('b', ['zz'])] };
    expect(checkMetaPlan(plan, { max_parts: 2 })).toEqual([
      'parts: 3 parts, at most 2 allowed ([orchestrator].max_parts); merge parts',
      'parts: the id "a" is used twice; give every part its own id',
      'parts.a.depends_on: a part cannot depend on itself',
      'parts.b.depends_on: "zz" is not the id of a part',
    ]);
    expect(checkMetaPlan({ task_summary: 't', parts: [part('a', ['c']), part('b', ['a']), part('c', ['b'])] }, { max_parts: 10 })).toEqual(['parts: the dependencies form a cycle (a → c → b → a); remove one edge']);
  });

  it('limits steps per part, counting the steps done when adjusting', () => {
    expect(checkPartPlan({ steps: [step('s1'), step('s2'), step('s1')], rationale: '' }, { max_steps_per_part: 2 })).toEqual([
      'steps: 3 steps, at most 2 allowed ([orchestrator].max_steps_per_part); merge steps',
      'steps: the id "s1" is used twice; give every step its own id',
    ]);
    expect(checkAdjustment({ rationale: '', remaining_steps: [step('s1'), step('s3')] }, [step('s1')], { max_steps_per_part: 2 })).toEqual([
      'remaining_steps: 3 steps in the part with those done, at most 2 allowed ([orchestrator].max_steps_per_part)',
      'remaining_steps: "s1" is a step already done; do not list it again',
    ]);
  });

  it('computes what an adjustment changed by step id', () => {
    expect(adjustmentChanges([step('s2'), step('s3'), step('s4')], [step('s2'), step('s3', 'other'), step('s5')])).toEqual({ added: ['s5'], removed: ['s4'], modified: ['s3'] });
  });
});
