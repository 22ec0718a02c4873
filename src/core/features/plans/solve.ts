/**
 * The solve orchestrator (docs/design.md, The solve orchestrator): deterministic code over plans as data. With a meta-plan
 * (made by a pass, or given), each part in dependency order gets a part plan, each step an
 * implement pass, and after every completed step an adjustment pass — unconditionally — revises
 * the remaining steps. With a plan (`--plan`), one implement pass of the whole plan. Limits come
 * from [orchestrator]; the outcome is complete / partial / failed with what did and did not
 * complete. State is written to the session after every pass, so a killed run resumes from its
 * last completed step.
 */
import { AppError } from '../../../shared/contract';
import type { Plan } from '../../../shared/contract/plans';
import type { MetaPlan, PartPlan, SolveOutcome, StepResult } from '../../../shared/contract/plansRuns';
import { metaPlanSchema, partPlanSchema, planAdjustmentSchema } from '../../../shared/contract/plansRuns';
import { adjustmentChanges, checkAdjustment, checkMetaPlan, checkPartPlan, partOrder } from './solveChecks';
import { adjustmentPrompt, metaPlanPrompt, partPlanPrompt, partPlanText, SOLVE_SYSTEM, structuredPass } from './solvePasses';
import type { PassHandle } from './solveRecords';
import { SESSION_KEYS, type OrchestratorProgress, type PartState, type SolveSession, type StepState } from './solveSession';
import { runStep, type StepDeps } from './solveStep';
import { solveProgressTree, type SolveProgressListener } from './solveProgress';

/** Everything a run needs. */
export interface SolveDeps extends StepDeps {
  session: SolveSession;
  onProgress?: SolveProgressListener;
}

/** Calls of a meta-plan or part-plan pass: an invalid plan gets one retry naming its problems (plan mode, issue #15 item 1). */
const PLAN_PASS_ATTEMPTS = 2;

/** The state a run starts from: a plan (`--plan`), a meta-plan (`--meta-plan`), or only the task. */
export function initialProgress(input: { task: string; plan?: Plan; metaPlan?: MetaPlan; limits: { max_parts: number } }): OrchestratorProgress {
  if (input.plan) {
    const plan = input.plan;
    const files = plan.execution_order.length ? plan.execution_order : plan.affected_files.map((f) => f.path);
    const description = plan.affected_files.flatMap((f) => f.changes.map((c) => `${f.path}: ${c.action} ${c.symbol} — ${c.description}`)).join('\n');
    const step = { id: 'implement', description: `${plan.task_summary}\n${description}`, files, expected_outcome: '' };
    const part = { id: 'plan', title: plan.task_summary, description: plan.rationale, files, depends_on: [] };
    return { version: 1, mode: 'plan', task: input.task, metaPlan: null, parts: [{ part, status: 'pending', plan: { steps: [step], rationale: plan.rationale }, steps: [{ step, status: 'pending', adjusted: true }] }] };
  }
  const progress: OrchestratorProgress = { version: 1, mode: 'orchestrated', task: input.task, metaPlan: null, parts: [] };
  if (input.metaPlan) {
    const errors = checkMetaPlan(input.metaPlan, input.limits);
    if (errors.length) throw new AppError('VALIDATION', `The meta-plan is not usable:\n${errors.map((e) => `  - ${e}`).join('\n')}`, { details: { errors } });
    setMetaPlan(progress, input.metaPlan);
  }
  return progress;
}

function setMetaPlan(progress: OrchestratorProgress, metaPlan: MetaPlan): void {
  const order = partOrder(metaPlan.parts);
  if (!order.ok) throw new Error('A checked meta-plan has a cycle.');
  progress.metaPlan = metaPlan;
  progress.parts = order.order.map((part) => ({ part, status: 'pending', plan: null, steps: [] }));
}

function setPartPlan(state: PartState, plan: PartPlan): void {
  state.plan = plan;
  state.steps = plan.steps.map((step) => ({ step, status: 'pending', adjusted: false }));
}

/** A resumed run: a pass that was running when the process stopped is pending again. */
export function reviveProgress(progress: OrchestratorProgress): OrchestratorProgress {
  for (const part of progress.parts) {
    if (part.status === 'running') part.status = 'pending';
    for (const step of part.steps) if (step.status === 'running') step.status = 'pending';
  }
  return progress;
}

/** Run (or resume) a solve to its outcome. Cancellation (the signal) leaves the session resumable and rethrows. */
export async function runSolve(deps: SolveDeps, solveRunId: string, start: OrchestratorProgress): Promise<SolveOutcome> {
  const progress = start;
  const current: { handle: PassHandle | null } = { handle: null };
  const tree = solveProgressTree(progress, deps.onProgress);
  const stepDeps: StepDeps = { ...deps, current, onPass: (p) => tree.pass(p) };
  const save = () => {
    deps.session.set(SESSION_KEYS.progress, progress);
    deps.records.setTotals(solveRunId, progress.parts.length, progress.parts.reduce((n, p) => n + p.steps.length, 0));
    tree.emit();
  };
  const planCall = (handle: PassHandle) => ({ llm: deps.llm, runId: handle.taskRunId, log: deps.log, signal: deps.signal });
  try {
    if (progress.mode === 'orchestrated' && !progress.metaPlan) {
      const handle = deps.records.startPass(solveRunId, { type: 'meta_plan', title: progress.task });
      current.handle = handle;
      tree.pass({ handle, type: 'meta_plan', attempt: 1, status: 'running' });
      const context = await deps.retriever.retrieve({ text: progress.task, planFiles: [], checkout: deps.workspace.path, runId: handle.taskRunId, log: deps.log, signal: deps.signal });
      const reading = await structuredPass(planCall(handle), { system: SOLVE_SYSTEM.meta_plan, prompt: metaPlanPrompt(progress.task, context.markdown, deps.limits.max_parts), schema: metaPlanSchema, check: (m) => checkMetaPlan(m, deps.limits), attempts: PLAN_PASS_ATTEMPTS });
      if (!reading.ok) {
        progress.error = `the meta-plan was invalid ${reading.attempts} times: ${reading.errors.join('; ')}`;
        deps.records.finishPass(handle, { status: 'failed', error: progress.error });
        tree.pass({ handle, type: 'meta_plan', attempt: 1, status: 'failed' });
        save();
        return outcomeOf(solveRunId, progress, []);
      }
      deps.session.set(SESSION_KEYS.metaPlan, reading.value);
      setMetaPlan(progress, reading.value);
      deps.records.finishPass(handle, { status: 'succeeded', output: reading.value, context: { package: context.package, markdown: context.markdown } });
      tree.pass({ handle, type: 'meta_plan', attempt: 1, status: 'succeeded' });
      save();
    }
    for (const state of progress.parts) {
      if (state.status === 'succeeded' || state.status === 'failed' || state.status === 'skipped') continue;
      const blocker = state.part.depends_on.map((id) => progress.parts.find((p) => p.part.id === id)).find((p) => p && p.status !== 'succeeded');
      if (blocker) {
        state.status = 'skipped';
        state.error = `depends on part ${blocker.part.id}, which did not succeed`;
        save();
        continue;
      }
      state.status = 'running';
      save();
      await runPart(deps, stepDeps, solveRunId, progress, state, { current, save, tree, planCall });
      save();
    }
    return outcomeOf(solveRunId, progress, []);
  } catch (error) {
    if (current.handle) deps.records.finishPassIfRunning(current.handle, { status: deps.signal?.aborted ? 'skipped' : 'failed', error: deps.signal?.aborted ? 'cancelled' : (error as Error).message });
    deps.session.set(SESSION_KEYS.progress, reviveProgress(progress));
    throw error;
  }
}

type PartTools = { current: { handle: PassHandle | null }; save: () => void; tree: ReturnType<typeof solveProgressTree>; planCall: (h: PassHandle) => { llm: SolveDeps['llm']; runId: string; log: SolveDeps['log']; signal: SolveDeps['signal'] } };

async function runPart(deps: SolveDeps, stepDeps: StepDeps, solveRunId: string, progress: OrchestratorProgress, state: PartState, tools: PartTools): Promise<void> {
  const { part } = state;
  const orchestrated = progress.mode === 'orchestrated';
  if (!state.plan) {
    const handle = deps.records.startPass(solveRunId, { type: 'part_plan', partId: part.id, title: `${part.id}: ${part.title}` });
    tools.current.handle = handle;
    tools.tree.pass({ handle, type: 'part_plan', partId: part.id, attempt: 1, status: 'running' });
    const context = await deps.retriever.retrieve({ text: `${progress.task}\n${part.title}\n${part.description}`, planFiles: part.files, checkout: deps.workspace.path, runId: handle.taskRunId, log: deps.log, signal: deps.signal });
    const cumulativeDiff = await deps.workspace.cumulativeDiff(deps.signal);
    const reading = await structuredPass(tools.planCall(handle), { system: SOLVE_SYSTEM.part_plan, prompt: partPlanPrompt({ task: progress.task, part, cumulativeDiff, context: context.markdown, maxSteps: deps.limits.max_steps_per_part }), schema: partPlanSchema, check: (p) => checkPartPlan(p, deps.limits), attempts: PLAN_PASS_ATTEMPTS });
    if (!reading.ok) {
      state.status = 'failed';
      state.error = `the part plan was invalid ${reading.attempts} times: ${reading.errors.join('; ')}`;
      deps.records.finishPass(handle, { status: 'failed', error: state.error });
      tools.tree.pass({ handle, type: 'part_plan', partId: part.id, attempt: 1, status: 'failed' });
      return;
    }
    deps.session.set(SESSION_KEYS.partPlan(part.id), reading.value);
    setPartPlan(state, reading.value);
    deps.records.finishPass(handle, { status: 'succeeded', output: reading.value, context: { package: context.package, markdown: context.markdown } });
    tools.tree.pass({ handle, type: 'part_plan', partId: part.id, attempt: 1, status: 'succeeded' });
    tools.save();
  }
  for (;;) {
    const unadjusted = state.steps.find((s) => s.status === 'succeeded' && !s.adjusted);
    if (unadjusted && orchestrated) {
      await adjust(deps, solveRunId, progress, state, unadjusted, tools);
      continue;
    }
    const next = state.steps.find((s) => s.status === 'pending');
    if (!next) break;
    next.status = 'running';
    tools.save();
    const result = await runStep(stepDeps, {
      solveRunId,
      task: progress.task,
      partId: part.id,
      step: next.step,
      planText: partPlanText(part, state.steps.map((s) => s.step), next.step.id),
      planFiles: [...new Set([...next.step.files, ...(orchestrated ? [] : part.files)])],
      passType: orchestrated ? 'step_implement' : 'implement',
    });
    await recordStep(deps, progress, state, next, result);
    tools.save();
    if (result.status === 'failed') {
      // A failed step ends its part: the steps after it were planned on top of it.
      for (const s of state.steps) if (s.status === 'pending') s.status = 'skipped';
      state.status = 'failed';
      state.error = `step ${next.step.id} failed: ${result.error ?? ''}`;
      return;
    }
  }
  state.status = 'succeeded';
}

/** The step's result, the cumulative diff and the progress in one session write: a run killed in between resumes consistently. */
async function recordStep(deps: SolveDeps, progress: OrchestratorProgress, state: PartState, step: StepState, result: StepResult): Promise<void> {
  step.status = result.status;
  if (result.error) step.error = result.error;
  const entries: Array<[string, unknown]> = [[SESSION_KEYS.stepResult(state.part.id, step.step.id), result]];
  if (result.status === 'succeeded') entries.push([SESSION_KEYS.cumulativeDiff, await deps.workspace.cumulativeDiff(deps.signal)]);
  entries.push([SESSION_KEYS.progress, progress]);
  deps.session.setMany(entries);
}

async function adjust(deps: SolveDeps, solveRunId: string, progress: OrchestratorProgress, state: PartState, after: StepState, tools: PartTools): Promise<void> {
  const { part } = state;
  const done = state.steps.filter((s) => s.status === 'succeeded' || s.status === 'failed');
  const remaining = state.steps.filter((s) => s.status === 'pending').map((s) => s.step);
  const handle = deps.records.startPass(solveRunId, { type: 'adjustment', partId: part.id, stepId: after.step.id, title: `${part.id}: after ${after.step.id}` });
  tools.current.handle = handle;
  tools.tree.pass({ handle, type: 'adjustment', partId: part.id, stepId: after.step.id, attempt: 1, status: 'running' });
  const cumulativeDiff = await deps.workspace.cumulativeDiff(deps.signal);
  const prompt = adjustmentPrompt({ task: progress.task, part, plan: state.plan!, done: done.map((s) => ({ step: s.step, status: s.status, ...(s.error ? { error: s.error } : {}) })), remaining, cumulativeDiff, maxSteps: deps.limits.max_steps_per_part });
  const reading = await structuredPass(tools.planCall(handle), { system: SOLVE_SYSTEM.adjustment, prompt, schema: planAdjustmentSchema, check: (a) => checkAdjustment(a, done.map((s) => s.step), deps.limits), attempts: deps.limits.max_adjustment_rounds });
  after.adjusted = true;
  if (!reading.ok) {
    // The remaining steps stay as they were: an adjustment that cannot be read changes nothing.
    const error = `the adjustment was invalid ${reading.attempts} times (remaining steps kept): ${reading.errors.join('; ')}`;
    deps.records.finishPass(handle, { status: 'failed', error });
    tools.tree.pass({ handle, type: 'adjustment', partId: part.id, stepId: after.step.id, attempt: reading.attempts, status: 'failed' });
    return;
  }
  const changes = adjustmentChanges(remaining, reading.value.remaining_steps);
  deps.session.set(SESSION_KEYS.adjustment(part.id, after.step.id), { ...reading.value, changes });
  state.steps = [...state.steps.filter((s) => s.status !== 'pending'), ...reading.value.remaining_steps.map((step) => ({ step, status: 'pending' as const, adjusted: false }))];
  deps.records.finishPass(handle, { status: 'succeeded', output: { ...reading.value, changes } });
  tools.tree.pass({ handle, type: 'adjustment', partId: part.id, stepId: after.step.id, attempt: reading.attempts, status: 'succeeded' });
}

/** The outcome: complete when every part succeeded, failed when no step did, else partial. */
export function outcomeOf(solveRunId: string, progress: OrchestratorProgress, files: string[]): SolveOutcome {
  const completed: SolveOutcome['completed'] = [];
  const notCompleted: SolveOutcome['notCompleted'] = [];
  for (const p of progress.parts) {
    for (const s of p.steps) {
      if (s.status === 'succeeded') completed.push({ partId: p.part.id, stepId: s.step.id });
      else notCompleted.push({ partId: p.part.id, stepId: s.step.id, reason: s.error ?? (s.status === 'skipped' ? `skipped: ${p.error ?? 'an earlier step failed'}` : s.status) });
    }
    if (p.steps.length === 0 && p.status !== 'succeeded') notCompleted.push({ partId: p.part.id, stepId: null, reason: p.error ?? p.status });
  }
  if (progress.parts.length === 0) notCompleted.push({ partId: '', stepId: null, reason: progress.error ?? 'no parts' });
  const all = progress.parts.length > 0 && progress.parts.every((p) => p.status === 'succeeded');
  const status = all && completed.length > 0 ? 'complete' : completed.length === 0 ? 'failed' : 'partial';
  return { solveRunId, status, completed, notCompleted, files };
}
