import { z } from 'zod';
import { request } from './define';
import type { RunStarted } from './runInfo';

/**
 * Plans (docs/design.md, Plan mode): a structured artifact that says which files
 * change, what changes in them and in what order, with explicit dependency edges — and no code.
 */

/** One change to one symbol of a file. */
export const planChangeSchema = z.object({
  symbol: z.string().trim().min(1, { error: 'symbol must name the function, class or section that changes' }).max(300),
  action: z.enum(['modify', 'add', 'delete', 'rename']),
  description: z.string().trim().min(1, { error: 'description must say what changes and why' }).max(2000),
  /** `path` or `path:Symbol` of what this change needs first. */
  depends_on: z.array(z.string().trim().min(1)).max(30).default([]),
  /** `path` or `path:Symbol` of what needs this change. */
  depended_by: z.array(z.string().trim().min(1)).max(30).default([]),
});

/** One file the plan touches. */
export const planFileSchema = z.object({
  path: z.string().trim().min(1).max(500),
  role: z.enum(['modify', 'create', 'delete']),
  changes: z.array(planChangeSchema).max(50),
});

/** The plan as a model returns it and as it is stored. */
export const planSchema = z.object({
  task_summary: z.string().trim().min(1).max(1000),
  affected_files: z.array(planFileSchema).min(1, { error: 'affected_files must list at least one file' }).max(50),
  execution_order: z.array(z.string().trim().min(1)).max(50),
  rationale: z.string().trim().min(1).max(4000),
});

/** A validated plan. */
export type Plan = z.infer<typeof planSchema>;
/** One change of a plan. */
export type PlanChange = z.infer<typeof planChangeSchema>;
/** One file of a plan. */
export type PlanFile = z.infer<typeof planFileSchema>;

/** The JSON schema sent as structured output (`format`); zod validates the reply either way. */
export const PLAN_JSON_SCHEMA = {
  type: 'object',
  properties: {
    task_summary: { type: 'string', minLength: 1, maxLength: 1000 },
    affected_files: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: {
        type: 'object',
        properties: {
          path: { type: 'string', minLength: 1, maxLength: 500 },
          role: { type: 'string', enum: ['modify', 'create', 'delete'] },
          changes: {
            type: 'array',
            maxItems: 50,
            items: {
              type: 'object',
              properties: {
                symbol: { type: 'string', minLength: 1, maxLength: 300 },
                action: { type: 'string', enum: ['modify', 'add', 'delete', 'rename'] },
                description: { type: 'string', minLength: 1, maxLength: 2000 },
                depends_on: { type: 'array', maxItems: 30, items: { type: 'string', minLength: 1 } },
                depended_by: { type: 'array', maxItems: 30, items: { type: 'string', minLength: 1 } },
              },
              required: ['symbol', 'action', 'description', 'depends_on', 'depended_by'],
            },
          },
        },
        required: ['path', 'role', 'changes'],
      },
    },
    execution_order: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1 } },
    rationale: { type: 'string', minLength: 1, maxLength: 4000 },
  },
  required: ['task_summary', 'affected_files', 'execution_order', 'rationale'],
} as const;

/** A saved plan with its metadata (the PlanArtifact of docs/design.md, Plan mode). */
export interface PlanArtifact {
  /** `p-<time>-<random>`; the file name under `repos/<repoId>/plans/`. */
  id: string;
  repoId: string;
  /** The task as given. */
  task: string;
  /** The task record's id (task analysis). */
  taskId: string;
  /** The run that made it. */
  runId?: string;
  createdAt: string;
  /** The model that wrote the plan (as the server named it). */
  model: string;
  /** 1 for a generated plan; an edited plan is saved as a new version. */
  version: number;
  /** The commit the plan was made against. */
  commit?: string;
  /** Model calls of the plan stage (1, or 2 after a retry). */
  attempts: number;
  /** Files retrieval handed the planner. */
  contextFiles: string[];
  /** The plan this version was edited from (absent for a generated plan). */
  editedFrom?: string;
  plan: Plan;
}

/** A plan as a list shows it. */
export interface PlanSummary {
  id: string;
  task: string;
  taskSummary: string;
  createdAt: string;
  model: string;
  version: number;
  files: number;
}

const planId = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, { error: 'planId must be 1–80 letters, digits, - or _' });

/** Requests of the plans domain. */
/** The examples' plan: one file, one change (a valid plan, so the examples succeed). */
const EXAMPLE_PLAN = {
  task_summary: 'Add a --verbose flag to the CLI',
  affected_files: [{ path: 'cli.py', role: 'modify', changes: [{ symbol: 'main', action: 'modify', description: 'Accept --verbose and log more.', depends_on: [], depended_by: [] }] }],
  execution_order: ['cli.py'],
  rationale: 'The flag is parsed where the others are.',
} satisfies z.input<typeof planSchema>;

export const plansRequests = {
  'plans/create': request<RunStarted<'plan'>>()(
    'Plan a coding task on a repository: starts a `plan` run whose result names the saved plan',
    () => z.object({
      repoId: z.string().min(1),
      task: z.string().trim().min(1, { error: 'task must not be empty' }).max(8000, { error: 'task must be at most 8000 characters' }),
      /** Judge scope candidates with the scope model (default: seeds and their neighbours without judgment). */
      judgeScope: z.boolean().default(false),
    }),
    { repoId: 'repo-1', task: 'Add a --verbose flag to the CLI' },
  ),
  'plans/list': request<{ plans: PlanSummary[] }>()('The saved plans of a repository, newest first', () => z.object({ repoId: z.string().min(1) }), { repoId: 'repo-1' }),
  'plans/get': request<{ plan: PlanArtifact }>()('One saved plan', () => z.object({ repoId: z.string().min(1), planId }), { repoId: 'repo-1', planId: 'p-1' }),
  'plans/validate': request<{ errors: string[] }>()(
    "Check an edited plan against its schema and the repository (files exist or are created, no cycles, execution order follows the edges): every problem as a line; empty when valid",
    () => z.object({ repoId: z.string().min(1), plan: z.unknown() }),
    { repoId: 'repo-1', plan: EXAMPLE_PLAN },
  ),
  'plans/save': request<{ plan: PlanArtifact }>()(
    'Save an edited plan as a new version of a saved one (refused with the problems when it does not validate); the original stays',
    () => z.object({ repoId: z.string().min(1), planId, plan: z.unknown() }),
    { repoId: 'repo-1', planId: 'p-1', plan: EXAMPLE_PLAN },
  ),
} as const;
