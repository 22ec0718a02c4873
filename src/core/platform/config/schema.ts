import { z } from 'zod';
import { modelNameSchema } from '../../../shared/contract/models';
import { MODEL_STAGES, type ModelStage } from '../../../shared/contract/stages';

/** Pipeline stages a model can be assigned to ([models.overrides] keys): the contract's list. */
export const STAGES = MODEL_STAGES;
/** One pipeline stage. */
export type Stage = ModelStage;

/** Model roles of [models]: coding and reasoning (docs/design.md, Model routing), plus the embedding model. */
export const ROLES = ['coding', 'reasoning', 'embedding'] as const;
/** One model role. */
export type Role = (typeof ROLES)[number];

/** Model server protocols, and `builtin`: llama.cpp inside the app (no server; base_url is not used). */
export const PROVIDERS = ['ollama', 'openai_compat', 'builtin'] as const;
/** One provider. */
export type Provider = (typeof PROVIDERS)[number];

/** The role a stage uses when the caller does not say (execute writes code; embedding embeds). */
export function defaultRoleOf(stage: Stage): Role {
  if (stage === 'execute') return 'coding';
  if (stage === 'embedding') return 'embedding';
  return 'reasoning';
}

/** A whole number in [min, max]; every failure says the same allowed range ("must be …"). */
function wholeNumber(min: number, max?: number) {
  const error = max === undefined ? `must be a whole number, at least ${min}` : `must be a whole number from ${min} to ${max}`;
  const n = z.number({ error }).int({ error }).min(min, { error });
  return max === undefined ? n : n.max(max, { error });
}

/** A number in (or from) min to max, with one message naming the range. */
function numberIn(min: number, max: number, exclusiveMin = false) {
  const error = exclusiveMin ? `must be a number above ${min}, at most ${max}` : `must be a number from ${min} to ${max}`;
  const n = z.number({ error });
  return (exclusiveMin ? n.gt(min, { error }) : n.min(min, { error })).max(max, { error });
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.map((v) => `"${v}"`).join(', ')}` });
}

const bool = z.boolean({ error: 'must be true or false' });
const positiveInt = wholeNumber(1);
/** Model names: the same rule as the models/assign request, so config/set cannot write what assign refuses. */
const modelTag = modelNameSchema;
const URL_RULE = 'must be an http:// or https:// address such as http://127.0.0.1:11434, without spaces or quotes';
/** The server address; quotes, spaces and control characters are refused (a URL parser would silently drop newlines). */
const serverUrl = z
  .string({ error: URL_RULE })
  .regex(/^https?:\/\/[^\s"'<>\\`]+$/i, { error: URL_RULE })
  .pipe(z.url({ protocol: /^https?$/, error: URL_RULE }));

/** A per-stage override: a model tag, or a table with the model and optional limits. */
export const overrideSchema = z.union([
  modelTag,
  z.object({ model: modelTag, context_window: positiveInt.optional(), max_tokens: positiveInt.optional() }).strict(),
]);
/** One per-stage override as written in the file. */
export type StageOverride = z.infer<typeof overrideSchema>;

const modelsSchema = z
  .object({
    provider: oneOf(PROVIDERS).default('ollama'),
    coding: modelTag.optional(),
    reasoning: modelTag.optional(),
    embedding: modelTag.optional(),
    base_url: serverUrl.optional(),
    context_window: positiveInt.default(32768),
    max_tokens: positiveInt.default(4096),
    temperature: numberIn(0, 2).default(0),
    /** Start `ollama serve` when the server is unreachable (the app stops only a server it started). */
    start_ollama: bool.default(false),
    /** Per-call timeout in seconds. */
    timeout_s: numberIn(0, 3600, true).default(300),
    overrides: z.partialRecord(oneOf(STAGES), overrideSchema).default({}),
  })
  .strict();

const budgetSchema = z
  .object({ context_window: positiveInt.default(32768), reserved_tokens: wholeNumber(0).default(4096) })
  .strict()
  .refine((b) => b.reserved_tokens < b.context_window, {
    message: 'reserved_tokens must be smaller than context_window',
    path: ['reserved_tokens'],
  });

/** Retrieval options; other domains may add keys, so unknown keys are kept. */
const retrievalSchema = z
  .object({
    /** The search mode used when a request says `auto` (the search box's and `cra search`'s default). */
    mode: oneOf(['auto', 'keyword', 'hybrid', 'semantic']).default('auto'),
    /** Files a search returns when the request names no limit. */
    top_k: wholeNumber(1, 200).default(20),
    /** Compute vectors in the background after each index (app hosts only). */
    embeddings: bool.default(false),
    // The retrieval pipeline (cra retrieve, the Context inspector, solve); defaults in core/retrieval/settings.ts and shared/defaults.ts.
    /** Scope: most candidates per task, seeds included. */
    max_candidates: wholeNumber(1, 1000).optional(),
    /** Scope tier 3: least shared commits for a co-change neighbour. */
    min_co_change: wholeNumber(1, 1000).optional(),
    /** Scope tier 1: top hits of the model-free search taken as seeds. */
    search_seeds: wholeNumber(0, 50).optional(),
    /** Judgment calls at once (default: OLLAMA_NUM_PARALLEL when set, else 1); results do not depend on it. */
    concurrency: wholeNumber(1, 64).optional(),
    /** chars/4 token estimates are counted this much high (0.1 = 10%). */
    safety_margin: numberIn(0, 1).optional(),
    /** Refinement re-entries allowed per task (solve). */
    max_refinement_loops: wholeNumber(0, 20).optional(),
  })
  .loose();

const orchestratorSchema = z
  .object({
    max_parts: wholeNumber(1, 1000).default(10),
    max_steps_per_part: wholeNumber(1, 1000).default(15),
    /** Attempts of the adjustment pass after each step (it always runs at least once). */
    max_adjustment_rounds: wholeNumber(1, 100).default(3),
    /** Implement attempts per step (a reply that does not apply or fails validation) before the step fails. */
    max_step_attempts: wholeNumber(1, 100).default(3),
    /** RefinementRequests per step: a failed validation with concrete evidence re-runs retrieval (docs/design.md, Refinement requests). */
    max_refinement_loops: wholeNumber(0, 100).default(2),
  })
  .strict();

/** Limits of one chat question (issue #22): what an answer may store and how many model calls a question may make. */
const chatSchema = z
  .object({
    /** An answer is stored and shown up to this many KiB; the rest is cut, with a note. */
    max_answer_kb: wholeNumber(1, 65536).default(256),
    /** Model calls one question may make (every step of its pipeline together); a pipeline that loops stops here. */
    max_model_calls: wholeNumber(1, 10000).default(40),
  })
  .strict();

/** A repository's validation commands (run in the solve worktree after each step; a shell command line each). */
const repoValidationSchema = z
  .object({
    test: z.string().trim().min(1).max(2000).optional(),
    lint: z.string().trim().min(1).max(2000).optional(),
    /** Seconds before a command is stopped (counted as a failure). */
    timeout_s: numberIn(0, 7200, true).default(600),
  })
  .strict();

/** Consent to run validation commands where the machine has no OS sandbox (user-level file only). */
const sandboxSchema = z
  .object({
    /** Run [validation] commands without a sandbox (with your rights) where none exists; asked once. */
    allow_unsandboxed_validation: z.boolean().default(false),
  })
  .strict();

/** The whole config file. [models] is optional here; the router demands it (a missing one says `cra init`). */
export const configSchema = z
  .object({
    models: modelsSchema.optional(),
    budget: budgetSchema.default({ context_window: 32768, reserved_tokens: 4096 }),
    retrieval: retrievalSchema.default({ mode: 'auto', top_k: 20, embeddings: false }),
    orchestrator: orchestratorSchema.default({ max_parts: 10, max_steps_per_part: 15, max_adjustment_rounds: 3, max_step_attempts: 3, max_refinement_loops: 2 }),
    chat: chatSchema.default({ max_answer_kb: 256, max_model_calls: 40 }),
    /** [validation.<repoId>]: per-repository validation commands; read from the user-level file only (never a repository's). */
    validation: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/), repoValidationSchema).default({}),
    /** [sandbox]: read from the user-level file only, like [validation]. */
    sandbox: sandboxSchema.default({ allow_unsandboxed_validation: false }),
  })
  .strict();

/** Validated config values (defaults filled in). */
export type ConfigValues = z.output<typeof configSchema>;
/** The [models] table after validation. */
export type ModelsConfig = z.output<typeof modelsSchema>;
