import type { Plan, PlanChange, PlanFile } from '../../../../shared/contract/plans';
import { planEdges, refPath } from '../../../../shared/planGraph';

/**
 * The plan editor's edits, as pure functions of the draft: each returns a new plan and keeps the
 * execution order in step with the files (a file added is appended to it, a file removed or renamed
 * leaves it and the dependency references that named it).
 */

const emptyChange = (): PlanChange => ({ symbol: '', action: 'modify', description: '', depends_on: [], depended_by: [] });


function mapFiles(plan: Plan, fn: (file: PlanFile, index: number) => PlanFile): Plan {
  return { ...plan, affected_files: plan.affected_files.map(fn) };
}

function dropRefsTo(plan: Plan, path: string): Plan {
  return mapFiles(plan, (f) => ({
    ...f,
    changes: f.changes.map((c) => ({ ...c, depends_on: c.depends_on.filter((r) => refPath(r) !== path), depended_by: c.depended_by.filter((r) => refPath(r) !== path) })),
  }));
}

export const planDraft = {
  addFile(plan: Plan, path: string, role: PlanFile['role'] = 'modify'): Plan {
    const clean = path.trim();
    return { ...plan, affected_files: [...plan.affected_files, { path: clean, role, changes: role === 'delete' ? [] : [emptyChange()] }], execution_order: [...plan.execution_order, clean] };
  },
  removeFile(plan: Plan, index: number): Plan {
    const path = plan.affected_files[index]?.path;
    if (path === undefined) return plan;
    const without = { ...plan, affected_files: plan.affected_files.filter((_, i) => i !== index), execution_order: plan.execution_order.filter((p) => p !== path) };
    return dropRefsTo(without, path);
  },
  setFile(plan: Plan, index: number, patch: Partial<Pick<PlanFile, 'path' | 'role'>>): Plan {
    const old = plan.affected_files[index];
    if (!old) return plan;
    const next = mapFiles(plan, (f, i) => (i === index ? { ...f, ...patch } : f));
    if (patch.path === undefined || patch.path === old.path) return next;
    const renamed = patch.path;
    const rename = (ref: string) => (refPath(ref) === old.path ? renamed + (ref.includes(':') ? ref.slice(ref.indexOf(':')) : '') : ref);
    return {
      ...mapFiles(next, (f) => ({ ...f, changes: f.changes.map((c) => ({ ...c, depends_on: c.depends_on.map(rename), depended_by: c.depended_by.map(rename) })) })),
      execution_order: next.execution_order.map((p) => (p === old.path ? renamed : p)),
    };
  },
  addChange(plan: Plan, fileIndex: number): Plan {
    return mapFiles(plan, (f, i) => (i === fileIndex ? { ...f, changes: [...f.changes, emptyChange()] } : f));
  },
  removeChange(plan: Plan, fileIndex: number, changeIndex: number): Plan {
    return mapFiles(plan, (f, i) => (i === fileIndex ? { ...f, changes: f.changes.filter((_, j) => j !== changeIndex) } : f));
  },
  setChange(plan: Plan, fileIndex: number, changeIndex: number, patch: Partial<PlanChange>): Plan {
    return mapFiles(plan, (f, i) => (i === fileIndex ? { ...f, changes: f.changes.map((c, j) => (j === changeIndex ? { ...c, ...patch } : c)) } : f));
  },
  /** Move the execution order's entry at `index` by `by` places (clamped). */
  moveInOrder(plan: Plan, index: number, by: number): Plan {
    const order = [...plan.execution_order];
    const to = Math.max(0, Math.min(order.length - 1, index + by));
    if (index < 0 || index >= order.length || to === index) return plan;
    const [moved] = order.splice(index, 1);
    order.splice(to, 0, moved!);
    return { ...plan, execution_order: order };
  },
  /** Make `file` depend on `on` (an edge on: → file), on the file's first change. */
  addEdge(plan: Plan, file: string, on: string): Plan {
    if (file === on) return plan;
    const index = plan.affected_files.findIndex((f) => f.path === file);
    const target = plan.affected_files[index];
    if (!target) return plan;
    if (target.changes.some((c) => c.depends_on.some((r) => refPath(r) === on))) return plan;
    const withChange = target.changes.length ? plan : planDraft.addChange(plan, index);
    return planDraft.setChange(withChange, index, 0, { depends_on: [...(withChange.affected_files[index]!.changes[0]!.depends_on), on] });
  },
  /** Remove every dependency of `file` on `on`, in either direction of declaration. */
  removeEdge(plan: Plan, file: string, on: string): Plan {
    return mapFiles(plan, (f) => ({
      ...f,
      changes: f.changes.map((c) => ({
        ...c,
        depends_on: f.path === file ? c.depends_on.filter((r) => refPath(r) !== on) : c.depends_on,
        depended_by: f.path === on ? c.depended_by.filter((r) => refPath(r) !== file) : c.depended_by,
      })),
    }));
  },
  /** File-level edges before → after, as the engine derives them (only between plan files). */
  edges: planEdges,
};
