/**
 * One step of a solve run (an implement pass, docs/design.md, Implement mode), with its retries: retrieval (the plan's
 * files as tier 0) → the coding model's edits → applied in the worktree, all or nothing →
 * validation. A reply that does not apply or a validation without evidence is retried up to
 * [orchestrator].max_step_attempts; a validation failure with concrete evidence becomes a
 * RefinementRequest to retrieval, up to max_refinement_loops. Every try is a pass of its own.
 */
import type { PlanStep, RefinementRequest, SolvePassType, StepResult, ValidationReport } from '../../../shared/contract/plansRuns';
import { applyEdits } from './edits/apply';
import type { LlmClient } from '../../platform/llm/client';
import type { CallLogger } from '../../platform/llm/types';
import type { SolveRetriever } from './solveContext';
import type { OrchestratorLimits } from './solveChecks';
import { implementPrompt, SOLVE_SYSTEM } from './solvePasses';
import type { PassHandle, SolveRecords } from './solveRecords';
import type { SolveWorkspace } from './solveWorkspace';
import { refinementFromValidation, validateStep, validationSummary, type ValidationCommands } from './validation';

/** What a step needs from the run. */
export interface StepDeps {
  llm: LlmClient;
  retriever: SolveRetriever;
  records: SolveRecords;
  workspace: SolveWorkspace;
  limits: OrchestratorLimits;
  validation?: ValidationCommands;
  /** The call log of a pass (the repository's raw DB). */
  log?: CallLogger;
  signal?: AbortSignal;
  /** A pass started or ended (progress tree). */
  onPass?: (pass: { handle: PassHandle; type: SolvePassType; partId: string; stepId: string; attempt: number; status: 'running' | 'succeeded' | 'failed' }) => void;
  /** The pass now running, so a cancellation can close it. */
  current?: { handle: PassHandle | null };
}

/** The step and what constrains it. */
export interface StepInput {
  solveRunId: string;
  task: string;
  partId: string;
  step: PlanStep;
  /** The plan as the coding model sees it (the part's steps, or the whole plan of `--plan`). */
  planText: string;
  /** Tier-0 files: the step's and the plan's. */
  planFiles: string[];
  passType: Extract<SolvePassType, 'step_implement' | 'implement'>;
}

/** Run a step to success or to its limits; the worktree holds the step's commit when it succeeded, and nothing of it otherwise. */
export async function runStep(deps: StepDeps, input: StepInput): Promise<StepResult> {
  const { limits, workspace } = deps;
  let attempts = 0;
  let refinements = 0;
  let retry: string | undefined;
  let refinement: RefinementRequest | undefined;
  let lastError = '';
  let lastValidation: ValidationReport | undefined;
  for (let attempt = 1; ; attempt++) {
    if (refinement) refinements++;
    else attempts++;
    const handle = deps.records.startPass(input.solveRunId, { type: input.passType, partId: input.partId, stepId: input.step.id, attempt, title: `${input.partId}/${input.step.id}: ${input.step.description}` });
    if (deps.current) deps.current.handle = handle;
    deps.onPass?.({ handle, type: input.passType, partId: input.partId, stepId: input.step.id, attempt, status: 'running' });
    const cumulativeDiff = await workspace.cumulativeDiff(deps.signal);
    const context = await deps.retriever.retrieve({ text: `${input.task}\n${input.step.description}`, planFiles: input.planFiles, checkout: workspace.path, runId: handle.taskRunId, log: deps.log, signal: deps.signal, ...(refinement ? { refinement } : {}) });
    const prompt = implementPrompt({ task: input.task, step: input.step, planText: input.planText, cumulativeDiff, context: context.markdown, ...(retry ? { retry } : {}) });
    const reply = await deps.llm.complete(prompt, { stage: 'execute', system: SOLVE_SYSTEM.implement, temperature: 0, runId: handle.taskRunId, log: deps.log, signal: deps.signal });
    const applied = await applyEdits(workspace.path, reply.text, deps.signal);
    const evidence = refinement;
    refinement = undefined;
    let failure: { error: string; validation?: ValidationReport };
    if (!applied.ok) {
      failure = { error: `the edits did not apply: ${applied.reason}` };
      retry = `${failure.error}. Nothing was written.`;
    } else {
      const validation = await validateStep(workspace.path, applied.files, deps.validation, deps.signal);
      if (validation.ok) {
        await workspace.commitStep(`${input.partId}/${input.step.id}: ${input.step.description}`.slice(0, 200), deps.signal);
        const output = { files: applied.files, contextFiles: context.files, model: reply.model, ...(evidence ? { refinement: evidence } : {}) };
        deps.records.finishPass(handle, { status: 'succeeded', output, diff: applied.diff, validation, context: { package: context.package, markdown: context.markdown } });
        deps.onPass?.({ handle, type: input.passType, partId: input.partId, stepId: input.step.id, attempt, status: 'succeeded' });
        return { partId: input.partId, stepId: input.step.id, status: 'succeeded', diff: applied.diff, files: applied.files, attempts, refinements, validation };
      }
      lastValidation = validation;
      failure = { error: `validation failed: ${validation.checks.filter((c) => !c.ok).map((c) => c.name).join(', ')}`, validation };
      retry = `Your edits applied, but validation failed:\n${validationSummary(validation)}`;
      const request = refinementFromValidation(validation);
      if (request && refinements < limits.max_refinement_loops) refinement = request;
    }
    await workspace.reset(deps.signal);
    lastError = failure.error;
    deps.records.finishPass(handle, { status: 'failed', error: failure.error, output: { model: reply.model, contextFiles: context.files, ...(refinement ? { refinementRequest: refinement } : {}) }, ...(applied.ok ? { diff: applied.diff } : {}), ...(failure.validation ? { validation: failure.validation } : {}), context: { package: context.package, markdown: context.markdown } });
    deps.onPass?.({ handle, type: input.passType, partId: input.partId, stepId: input.step.id, attempt, status: 'failed' });
    if (!refinement && attempts >= limits.max_step_attempts) break;
  }
  return { partId: input.partId, stepId: input.step.id, status: 'failed', diff: '', files: [], attempts, refinements, error: lastError, ...(lastValidation ? { validation: lastValidation } : {}) };
}
