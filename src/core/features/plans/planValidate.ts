/**
 * Reading and checking a plan: the model's reply parsed tolerantly (thinking blocks, prose around
 * the JSON object), its shape checked with zod, then what a shape cannot say — files exist or are
 * marked new, no code, dependency edges acyclic, execution order consistent with the edges. The
 * same checks will serve the plan editor's live validation.
 */
import { planSchema, type Plan } from '../../../shared/contract/plans';
import { normalizePath, planEdges, refPath } from '../../../shared/planGraph';
import { extractJsonObject } from '../../platform/llm/replyJson';



/** The outcome of reading a reply: the plan, or every problem found (each a line for the model and the person). */
export type PlanReading = { ok: true; plan: Plan } | { ok: false; errors: string[] };

/** What the checks need to know about the repository. */
export interface PlanRepoView {
  /** Whether the index has a file at this repository-relative path. */
  hasFile(path: string): boolean;
}

/** Parse a model's reply into a plan and check it (shape, then {@link checkPlan}). */
export function readPlanReply(text: string, repo: PlanRepoView): PlanReading {
  const json = extractJsonObject(text);
  if (json === null) return { ok: false, errors: ['the reply has no complete JSON object; reply with the plan as one JSON object'] };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return { ok: false, errors: [`the JSON object does not parse: ${(error as Error).message}`] };
  }
  return readPlanValue(value, repo);
}

/** Check a plan given as a value (an edited plan, a parsed reply): its shape, then {@link checkPlan}. */
export function readPlanValue(value: unknown, repo: PlanRepoView): PlanReading {
  const shape = planSchema.safeParse(value);
  if (!shape.success) return { ok: false, errors: shape.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`) };
  const plan = normalizePlan(shape.data);
  const errors = checkPlan(plan, repo);
  return errors.length ? { ok: false, errors } : { ok: true, plan };
}


function normalizePlan(plan: Plan): Plan {
  return {
    ...plan,
    affected_files: plan.affected_files.map((f) => ({ ...f, path: normalizePath(f.path) })),
    execution_order: plan.execution_order.map(normalizePath),
  };
}

const CODE = /```|~~~/;

/** A dependency cycle among the plan's files (`a → b → a`), or null. */
export function findCycle(plan: Plan): string[] | null {
  const next = new Map<string, string[]>();
  for (const e of planEdges(plan)) next.set(e.before, [...(next.get(e.before) ?? []), e.after]);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    stack.push(node);
    for (const to of next.get(node) ?? []) {
      if (state.get(to) === 'open') return [...stack.slice(stack.indexOf(to)), to];
      if (!state.has(to)) {
        const found = visit(to);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const file of plan.affected_files) {
    if (state.has(file.path)) continue;
    const found = visit(file.path);
    if (found) return found;
  }
  return null;
}

/**
 * Everything wrong with a well-shaped plan, as lines that name the place and the fix: a file to
 * modify or delete that the index does not have (or a file to create that it has), a file listed
 * twice, code in a description, a dependency on an unknown file, a dependency cycle, and an
 * execution order that misses a file, names one not in the plan, or puts a file before one it
 * depends on. Empty when the plan is valid.
 */
export function checkPlan(plan: Plan, repo: PlanRepoView): string[] {
  const errors: string[] = [];
  const paths = new Set<string>();
  plan.affected_files.forEach((file, i) => {
    const at = `affected_files[${i}] (${file.path})`;
    if (paths.has(file.path)) errors.push(`${at}: the file is listed twice; list each file once with all its changes`);
    paths.add(file.path);
    const known = repo.hasFile(file.path);
    if (file.role === 'create' && known) errors.push(`${at}: role is create but the file exists; use role modify`);
    if (file.role !== 'create' && !known) errors.push(`${at}: the file is not in the repository; use a path from the repository, or role create for a new file`);
    if (file.role !== 'delete' && file.changes.length === 0) errors.push(`${at}: no changes listed; say what changes in the file`);
    file.changes.forEach((change, j) => {
      const where = `${at}.changes[${j}]`;
      if (CODE.test(change.description)) errors.push(`${where}.description contains a code block; plans say what changes and why, never the code`);
      for (const ref of [...change.depends_on, ...change.depended_by]) {
        const path = refPath(ref);
        if (!repo.hasFile(path) && !plan.affected_files.some((f) => f.path === path)) errors.push(`${where}: the dependency "${ref}" names a file that is neither in the repository nor in the plan`);
      }
    });
  });
  if (CODE.test(plan.rationale)) errors.push('rationale contains a code block; plans say what changes and why, never the code');
  if (CODE.test(plan.task_summary)) errors.push('task_summary contains a code block; plans say what changes and why, never the code');

  const cycle = findCycle(plan);
  if (cycle) errors.push(`dependency cycle: ${cycle.join(' → ')}; a file cannot depend on a file that depends on it`);
  const order = plan.execution_order;
  const seen = new Set<string>();
  for (const path of order) {
    if (!paths.has(path)) errors.push(`execution_order names ${path}, which is not in affected_files`);
    if (seen.has(path)) errors.push(`execution_order lists ${path} twice`);
    seen.add(path);
  }
  for (const path of paths) if (!seen.has(path)) errors.push(`execution_order misses ${path}; list every affected file once`);
  if (!cycle) {
    for (const { before, after } of planEdges(plan)) {
      const a = order.indexOf(before);
      const b = order.indexOf(after);
      if (a >= 0 && b >= 0 && a > b) errors.push(`execution_order puts ${after} before ${before}, but ${after} depends on ${before}`);
    }
  }
  return errors;
}
