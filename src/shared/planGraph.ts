/**
 * A plan's file-level dependency graph, as the engine checks it and the plan editor draws it: one
 * reading of `depends_on` / `depended_by` references for both.
 */
import type { Plan } from './contract/plans';

/** Paths as the index spells them (no leading `./`, `/` separators). */
export function normalizePath(path: string): string {
  return path.trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

/** `path:Symbol` or `path` → its path (the part before the first colon). */
export function refPath(ref: string): string {
  const at = ref.indexOf(':');
  return normalizePath(at < 0 ? ref : ref.slice(0, at));
}

/** File-level edges `before → after` that the plan's dependencies imply, between two different plan files. */
export function planEdges(plan: Plan): Array<{ before: string; after: string }> {
  const inPlan = new Set(plan.affected_files.map((f) => f.path));
  const edges = new Map<string, { before: string; after: string }>();
  const add = (before: string, after: string) => {
    if (before !== after && inPlan.has(before) && inPlan.has(after)) edges.set(`${before}\n${after}`, { before, after });
  };
  for (const file of plan.affected_files) {
    for (const change of file.changes) {
      for (const ref of change.depends_on) add(refPath(ref), file.path);
      for (const ref of change.depended_by) add(file.path, refPath(ref));
    }
  }
  return [...edges.values()];
}
