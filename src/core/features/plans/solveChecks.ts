/**
 * Deterministic checks and orderings of the orchestrator's plans: limits from [orchestrator],
 * unique ids, dependency edges that name known parts and form no cycle, and what an adjustment
 * changed. A check's messages go back to the model on a retry, so each says what to fix.
 */
import type { AdjustmentChanges, MetaPlan, MetaPlanPart, PartPlan, PlanAdjustment, PlanStep } from '../../../shared/contract/plansRuns';

/** The limits of [orchestrator] the checks enforce. */
export interface OrchestratorLimits {
  max_parts: number;
  max_steps_per_part: number;
  max_adjustment_rounds: number;
  max_step_attempts: number;
  max_refinement_loops: number;
}

function duplicates(ids: string[]): string[] {
  return [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
}

/** Parts in dependency order (a part after every part it depends on; otherwise as listed), or the cycle. */
export function partOrder(parts: readonly MetaPlanPart[]): { ok: true; order: MetaPlanPart[] } | { ok: false; cycle: string[] } {
  const byId = new Map(parts.map((p) => [p.id, p]));
  const state = new Map<string, 'visiting' | 'done'>();
  const order: MetaPlanPart[] = [];
  const visit = (part: MetaPlanPart, path: string[]): string[] | null => {
    const s = state.get(part.id);
    if (s === 'done') return null;
    if (s === 'visiting') return [...path.slice(path.indexOf(part.id)), part.id];
    state.set(part.id, 'visiting');
    for (const dep of part.depends_on) {
      const before = byId.get(dep);
      if (!before) continue;
      const cycle = visit(before, [...path, part.id]);
      if (cycle) return cycle;
    }
    state.set(part.id, 'done');
    order.push(part);
    return null;
  };
  for (const part of parts) {
    const cycle = visit(part, []);
    if (cycle) return { ok: false, cycle };
  }
  return { ok: true, order };
}

/** Problems of a meta-plan: too many parts, duplicate ids, unknown or cyclic dependencies. */
export function checkMetaPlan(plan: MetaPlan, limits: Pick<OrchestratorLimits, 'max_parts'>): string[] {
  const errors: string[] = [];
  if (plan.parts.length > limits.max_parts) errors.push(`parts: ${plan.parts.length} parts, at most ${limits.max_parts} allowed ([orchestrator].max_parts); merge parts`);
  const ids = plan.parts.map((p) => p.id);
  for (const id of duplicates(ids)) errors.push(`parts: the id "${id}" is used twice; give every part its own id`);
  for (const p of plan.parts) {
    for (const dep of p.depends_on) {
      if (dep === p.id) errors.push(`parts.${p.id}.depends_on: a part cannot depend on itself`);
      else if (!ids.includes(dep)) errors.push(`parts.${p.id}.depends_on: "${dep}" is not the id of a part`);
    }
  }
  if (errors.length === 0) {
    const order = partOrder(plan.parts);
    if (!order.ok) errors.push(`parts: the dependencies form a cycle (${order.cycle.join(' → ')}); remove one edge`);
  }
  return errors;
}

/** Problems of a part plan: too many steps, duplicate ids. */
export function checkPartPlan(plan: PartPlan, limits: Pick<OrchestratorLimits, 'max_steps_per_part'>): string[] {
  const errors: string[] = [];
  if (plan.steps.length > limits.max_steps_per_part) errors.push(`steps: ${plan.steps.length} steps, at most ${limits.max_steps_per_part} allowed ([orchestrator].max_steps_per_part); merge steps`);
  for (const id of duplicates(plan.steps.map((s) => s.id))) errors.push(`steps: the id "${id}" is used twice; give every step its own id`);
  return errors;
}

/** Problems of an adjustment: ids that clash with steps already done or with each other, too many steps in all. */
export function checkAdjustment(adjustment: PlanAdjustment, done: readonly PlanStep[], limits: Pick<OrchestratorLimits, 'max_steps_per_part'>): string[] {
  const errors: string[] = [];
  const total = done.length + adjustment.remaining_steps.length;
  if (total > limits.max_steps_per_part) errors.push(`remaining_steps: ${total} steps in the part with those done, at most ${limits.max_steps_per_part} allowed ([orchestrator].max_steps_per_part)`);
  const doneIds = new Set(done.map((s) => s.id));
  for (const s of adjustment.remaining_steps) if (doneIds.has(s.id)) errors.push(`remaining_steps: "${s.id}" is a step already done; do not list it again`);
  for (const id of duplicates(adjustment.remaining_steps.map((s) => s.id))) errors.push(`remaining_steps: the id "${id}" is used twice`);
  return errors;
}

/** What an adjustment changed, by step id: added, removed, modified (description, files, symbol or outcome). */
export function adjustmentChanges(before: readonly PlanStep[], after: readonly PlanStep[]): AdjustmentChanges {
  const old = new Map(before.map((s) => [s.id, s]));
  const next = new Map(after.map((s) => [s.id, s]));
  const same = (a: PlanStep, b: PlanStep) => a.description === b.description && a.expected_outcome === b.expected_outcome && (a.symbol ?? '') === (b.symbol ?? '') && a.files.join('\n') === b.files.join('\n');
  return {
    added: after.filter((s) => !old.has(s.id)).map((s) => s.id),
    removed: before.filter((s) => !next.has(s.id)).map((s) => s.id),
    modified: after.filter((s) => old.has(s.id) && !same(old.get(s.id)!, s)).map((s) => s.id),
  };
}
