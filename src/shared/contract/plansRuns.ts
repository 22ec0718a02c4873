import { z } from 'zod';
import { request } from './define';
import type { RunStarted } from './runInfo';
import { planSchema } from './plans';
import type { ContextPackage } from './retrieval';

/**
 * The solve orchestrator (docs/design.md, Implement mode; The solve orchestrator): the data the passes
 * return (MetaPlan, PartPlan, PlanAdjustment), what a run records (StepResult, passes), and the
 * plans/solve, plans/getRun… requests. Plans are data: the orchestrator iterates over them; models never see it.
 */

const id = z.string().trim().regex(/^[A-Za-z0-9_.-]{1,40}$/, { error: 'ids are 1–40 letters, digits, ".", "_" or "-"' });
const text = (max: number, what: string) => z.string().trim().min(1, { error: `${what} must not be empty` }).max(max);

/** One logical part of a task. */
export const metaPlanPartSchema = z.object({
  id,
  title: text(200, 'title'),
  description: text(2000, 'description'),
  /** Files the part is expected to touch (repository paths). */
  files: z.array(z.string().trim().min(1).max(500)).max(50).default([]),
  /** Ids of parts that must be done first. */
  depends_on: z.array(id).max(50).default([]),
});

/** The task decomposed into parts with dependency edges. */
export const metaPlanSchema = z.object({
  task_summary: text(1000, 'task_summary'),
  parts: z.array(metaPlanPartSchema).min(1, { error: 'parts must list at least one part' }).max(1000),
});

/** One atomic implementation step. */
export const planStepSchema = z.object({
  id,
  description: text(2000, 'description'),
  /** Files the step changes (repository paths). */
  files: z.array(z.string().trim().min(1).max(500)).max(30).default([]),
  /** The symbol it targets, when one. */
  symbol: z.string().trim().max(300).optional(),
  expected_outcome: z.string().trim().max(2000).default(''),
});

/** The steps of one part. */
export const partPlanSchema = z.object({
  steps: z.array(planStepSchema).min(1, { error: 'steps must list at least one step' }).max(1000),
  rationale: z.string().trim().max(4000).default(''),
});

/** The revised remaining steps after a step (the same steps when nothing changes). */
export const planAdjustmentSchema = z.object({
  rationale: z.string().trim().max(4000).default(''),
  remaining_steps: z.array(planStepSchema).max(1000),
});

/** A validated meta-plan. */
export type MetaPlan = z.infer<typeof metaPlanSchema>;
/** One part of a meta-plan. */
export type MetaPlanPart = z.infer<typeof metaPlanPartSchema>;
/** A validated part plan. */
export type PartPlan = z.infer<typeof partPlanSchema>;
/** One step. */
export type PlanStep = z.infer<typeof planStepSchema>;
/** A validated adjustment. */
export type PlanAdjustment = z.infer<typeof planAdjustmentSchema>;

/** What changed between the steps before and after an adjustment (computed by the orchestrator, by id). */
export interface AdjustmentChanges {
  added: string[];
  removed: string[];
  modified: string[];
}

/** The validation of one step in the run's worktree. */
export interface ValidationReport {
  ok: boolean;
  /** `commands`: the configured test / lint commands; `syntax`: changed files parsed with tree-sitter (none configured). */
  kind: 'commands' | 'syntax' | 'none';
  checks: Array<{ name: string; command?: string; ok: boolean; exitCode: number | null; output: string; ms: number; timedOut?: boolean }>;
}

/** Concrete evidence that the context was insufficient (docs/design.md, Refinement requests): sent back to retrieval. */
export interface RefinementRequest {
  reason: string;
  missing_files: string[];
  missing_symbols: string[];
  missing_tests: string[];
  error_signatures: string[];
}

/** The outcome of one step implementation. */
export interface StepResult {
  partId: string;
  stepId: string;
  status: 'succeeded' | 'failed';
  /** The step's own diff (against the state before it). */
  diff: string;
  files: string[];
  attempts: number;
  refinements: number;
  error?: string;
  validation?: ValidationReport;
}

/** The status of a node of the run (a part, a step, a pass). */
export type SolveNodeStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';

/** The kinds of pass (`orchestrator_passes.pass_type`); `implement` is the single pass of `--plan`. */
export type SolvePassType = 'meta_plan' | 'part_plan' | 'step_implement' | 'adjustment' | 'implement';

/** What retrieval handed a pass. */
export interface PassContext {
  package: ContextPackage;
  markdown: string;
}

/** One pass as the raw DB keeps it. */
export interface SolvePassRecord {
  sequence: number;
  type: SolvePassType;
  partId: string | null;
  stepId: string | null;
  attempt: number;
  status: SolveNodeStatus;
  /** The pass's task_runs row: its model calls carry this run id. */
  taskRunId: string;
  error: string | null;
  /** The pass's output (plan, adjustment, step result) as JSON. */
  output: unknown;
  diff: string | null;
  validation: ValidationReport | null;
  /** The context package retrieval handed the pass, and as the prompt showed it (null for passes without retrieval, and runs before it was kept). */
  context: PassContext | null;
  startedAt: string;
  finishedAt: string | null;
}

/** complete: every step succeeded; partial: some did; failed: none did (or the plan passes failed). */
export type SolveOutcomeStatus = 'complete' | 'partial' | 'failed';

/** What a solve run ends with. */
export interface SolveOutcome {
  solveRunId: string;
  status: SolveOutcomeStatus;
  completed: Array<{ partId: string; stepId: string }>;
  notCompleted: Array<{ partId: string; stepId: string | null; reason: string }>;
  /** Files the cumulative diff changes. */
  files: string[];
}

/** A run's parts and steps as the progress tree draws them. */
export interface SolvePartView {
  id: string;
  title: string;
  status: SolveNodeStatus;
  steps: Array<{ id: string; description: string; status: SolveNodeStatus; error?: string }>;
}

/** A solve run with its passes, diffs and validation output (`plans/getRun`). */
export interface SolveRunDetail {
  solveRunId: string;
  repoId: string;
  task: string;
  /** `plan`: one implement pass of a given plan; `orchestrated`: meta-plan → parts → steps. */
  mode: 'plan' | 'orchestrated';
  status: 'running' | SolveOutcomeStatus | 'cancelled' | 'interrupted' | 'discarded';
  baseCommit: string;
  startedAt: string;
  finishedAt: string | null;
  parts: SolvePartView[];
  passes: SolvePassRecord[];
  cumulativeDiff: string;
  outcome: SolveOutcome | null;
}

/** A solve run as a list shows it. */
export interface SolveRunSummary {
  solveRunId: string;
  task: string;
  mode: 'plan' | 'orchestrated';
  status: SolveRunDetail['status'];
  totalParts: number | null;
  totalSteps: number | null;
  startedAt: string;
  finishedAt: string | null;
}

const runIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, { error: 'a solve run id is 1–80 letters, digits, - or _' });

/** Requests of the solve domain. */
export const plansRunsRequests = {
  'plans/solve': request<RunStarted<'solve'> & { solveRunId: string }>()(
    'Solve a task on a repository in an isolated worktree: with `plan`, one implement pass; else the orchestrator (meta-plan → part plans → steps → adjustments); `resume` continues an interrupted run from its last completed step',
    () => z
      .object({
        repoId: z.string().min(1),
        task: z.string().trim().max(8000, { error: 'the task must be at most 8000 characters' }).default(''),
        plan: planSchema.optional(),
        metaPlan: metaPlanSchema.optional(),
        /** Start from the user's uncommitted changes (committed first in the run's worktree; the user's tree is not touched). */
        includeUncommitted: z.boolean().default(false),
        /** Run validation commands without an OS sandbox where the machine has none (this run only; see [sandbox]). */
        allowUnsandboxedValidation: z.boolean().optional(),
        resume: runIdSchema.optional(),
      })
      .refine((r) => !(r.plan && r.metaPlan), { error: 'plan and metaPlan are mutually exclusive: give one' })
      .refine((r) => r.resume || r.plan || r.task.length > 0, { error: 'the task must not be empty: describe what should change' }),
    { repoId: 'repo-1', task: 'Add a mul function and export it' },
  ),
  'plans/getRun': request<{ run: SolveRunDetail }>()('One solve run: parts, steps, passes with their diffs and validation output, the cumulative diff', () => z.object({ repoId: z.string().min(1), solveRunId: runIdSchema }), { repoId: 'repo-1', solveRunId: 'r-1' }),
  'plans/discardRun': request<{ solveRunId: string }>()(
    'Discard a cancelled or interrupted solve run: it can no longer be resumed (its session is archived into the raw DB); its record and diffs stay',
    () => z.object({ repoId: z.string().min(1), solveRunId: runIdSchema }),
    { repoId: 'repo-1', solveRunId: 'r-1' },
  ),
  'plans/listRuns': request<{ runs: SolveRunSummary[] }>()('The solve runs of a repository, newest first', () => z.object({ repoId: z.string().min(1) }), { repoId: 'repo-1' }),
  'plans/sandbox': request<SandboxStatus>()(
    "Where a repository's validation commands would run: the OS sandbox this machine has (or none), whether commands are configured, and whether the user allowed running them without a sandbox; the app asks once before a run that would be refused",
    () => z.object({ repoId: z.string().min(1) }).strict(),
    { repoId: 'repo-1' },
  ),
} as const;

/** Where validation runs, for the app's question before the first run and the Settings page. */
export interface SandboxStatus {
  /** The sandbox validation commands run in here; null: this machine has none. */
  sandbox: 'bwrap' | 'sandbox-exec' | null;
  /** The repository has test or lint commands configured (without them nothing is run). */
  commandsConfigured: boolean;
  /** `[sandbox] allow_unsandboxed_validation` of the user-level config. */
  allowUnsandboxed: boolean;
  /** A run would be refused now: commands configured, no sandbox, no consent. */
  wouldRefuse: boolean;
  /** What the user is told (the refusal's text when `wouldRefuse`). */
  message: string;
}
