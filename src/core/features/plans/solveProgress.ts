/**
 * The progress tree of a solve run as `run/progress` carries it: the meta-plan pass, then parts →
 * (part plan pass, steps) → passes (implement attempts, then the adjustment after the step), each node with its status, so a UI can draw the run live. Node ids are stable
 * (`meta`, `part:<id>`, `step:<part>:<id>`, `pass:<sequence>`), so updates merge by id.
 */
import type { ProgressNode, ProgressNodeStatus } from '../../../shared/contract/runs';
import type { SolveNodeStatus, SolvePassType } from '../../../shared/contract/plansRuns';
import type { PassHandle } from './solveRecords';
import type { OrchestratorProgress } from './solveSession';

/** Receives the phase and the whole tree after every change. */
export type SolveProgressListener = (update: { phase: string; done: number; total: number; steps: ProgressNode[] }) => void;

/** A pass as the tree shows it. */
export interface PassEvent {
  handle: PassHandle;
  type: SolvePassType;
  partId?: string;
  stepId?: string;
  attempt: number;
  status: 'running' | 'succeeded' | 'failed';
}

const status = (s: SolveNodeStatus): ProgressNodeStatus => (s === 'succeeded' ? 'done' : s);

const LABEL: Record<SolvePassType, string> = { meta_plan: 'meta-plan', part_plan: 'part plan', step_implement: 'implement', adjustment: 'adjustment', implement: 'implement' };

/** Keeps the passes seen so far and renders the tree from the run's progress. */
export function solveProgressTree(progress: OrchestratorProgress, listener?: SolveProgressListener) {
  const passes: PassEvent[] = [];
  let phase = 'starting';
  const passNode = (p: PassEvent): ProgressNode => ({ id: `pass:${p.handle.sequence}`, label: `${LABEL[p.type]}${p.attempt > 1 ? ` (attempt ${p.attempt})` : ''}`, status: status(p.status) });
  const render = (): ProgressNode[] => {
    const nodes: ProgressNode[] = [];
    const meta = passes.filter((p) => p.type === 'meta_plan');
    if (meta.length) nodes.push({ id: 'meta', label: 'Meta-plan', status: status(meta.at(-1)!.status), children: meta.map(passNode) });
    for (const part of progress.parts) {
      const own = passes.filter((p) => p.partId === part.part.id && p.type === 'part_plan');
      const steps: ProgressNode[] = part.steps.map((s) => ({
        id: `step:${part.part.id}:${s.step.id}`,
        label: s.step.description.split('\n')[0]!.slice(0, 120),
        status: status(s.status),
        // The step's implement passes, then the adjustment that followed it.
        children: passes.filter((p) => p.partId === part.part.id && p.stepId === s.step.id).map(passNode),
      }));
      const done = part.steps.filter((s) => s.status === 'succeeded').length;
      nodes.push({ id: `part:${part.part.id}`, label: part.part.title, status: status(part.status), done, total: part.steps.length, children: [...own.map(passNode), ...steps] });
    }
    return nodes;
  };
  const emit = () => {
    if (!listener) return;
    const steps = progress.parts.flatMap((p) => p.steps);
    listener({ phase, done: steps.filter((s) => s.status === 'succeeded').length, total: steps.length, steps: render() });
  };
  return {
    /** A pass started or ended. */
    pass(event: PassEvent) {
      const at = passes.findIndex((p) => p.handle.sequence === event.handle.sequence);
      if (at >= 0) passes[at] = event;
      else passes.push(event);
      phase = `${LABEL[event.type]}${event.partId ? ` · ${event.partId}` : ''}${event.stepId ? `/${event.stepId}` : ''}`;
      emit();
    },
    emit,
    render,
  };
}
