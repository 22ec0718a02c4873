import { z } from 'zod';

/** Pipeline stages a model can be assigned to ([models.overrides] keys). */
export const STAGES = ['task_analysis', 'scope', 'precision', 'similarity', 'routing', 'plan', 'execute', 'chat', 'summarize', 'embedding'] as const;
/** One pipeline stage. */
export type Stage = (typeof STAGES)[number];

/** Model roles of [models]: the seed's coding and reasoning, plus the embedding model. */
export const ROLES = ['coding', 'reasoning', 'embedding'] as const;
/** One model role. */
export type Role = (typeof ROLES)[number];

/** Model server protocols. */
export const PROVIDERS = ['ollama', 'openai_compat'] as const;
/** One provider. */
export type Provider = (typeof PROVIDERS)[number];

/** The role a stage uses when the caller does not say (execute writes code; embedding embeds). */
export function defaultRoleOf(stage: Stage): Role {
  if (stage === 'execute') return 'coding';
  if (stage === 'embedding') return 'embedding';
  return 'reasoning';
}

const positiveInt = z.number().int().positive();
const modelTag = z.string().trim().min(1).max(200);

/** A per-stage override: a model tag, or a table with the model and optional limits. */
export const overrideSchema = z.union([
  modelTag,
  z.object({ model: modelTag, context_window: positiveInt.optional(), max_tokens: positiveInt.optional() }).strict(),
]);
/** One per-stage override as written in the file. */
export type StageOverride = z.infer<typeof overrideSchema>;

const modelsSchema = z
  .object({
    provider: z.enum(PROVIDERS).default('ollama'),
    coding: modelTag.optional(),
    reasoning: modelTag.optional(),
    embedding: modelTag.optional(),
    base_url: z.url({ protocol: /^https?$/ }).optional(),
    context_window: positiveInt.default(32768),
    max_tokens: positiveInt.default(4096),
    temperature: z.number().min(0).max(2).default(0),
    /** Start `ollama serve` when the server is unreachable (the app stops only a server it started). */
    start_ollama: z.boolean().default(false),
    /** Per-call timeout in seconds. */
    timeout_s: z.number().positive().max(3600).default(300),
    overrides: z.partialRecord(z.enum(STAGES), overrideSchema).default({}),
  })
  .strict();

const budgetSchema = z
  .object({ context_window: positiveInt.default(32768), reserved_tokens: z.number().int().min(0).default(4096) })
  .strict()
  .refine((b) => b.reserved_tokens < b.context_window, {
    message: 'reserved_tokens must be smaller than context_window',
    path: ['reserved_tokens'],
  });

/** Retrieval options; other domains may add keys, so unknown keys are kept. */
const retrievalSchema = z
  .object({
    /** The search mode used when a request says `auto` (the search box's and `cra search`'s default). */
    mode: z.enum(['auto', 'keyword', 'hybrid', 'semantic']).default('auto'),
    /** Files a search returns when the request names no limit. */
    top_k: positiveInt.max(200).default(20),
    /** Compute vectors in the background after each index (app hosts only). */
    embeddings: z.boolean().default(false),
  })
  .loose();

const orchestratorSchema = z
  .object({
    max_parts: positiveInt.max(1000).default(10),
    max_steps_per_part: positiveInt.max(1000).default(15),
    max_adjustment_rounds: z.number().int().min(0).max(100).default(3),
  })
  .strict();

/** The whole config file. [models] is optional here; the router demands it (a missing one says `cra init`). */
export const configSchema = z
  .object({
    models: modelsSchema.optional(),
    budget: budgetSchema.default({ context_window: 32768, reserved_tokens: 4096 }),
    retrieval: retrievalSchema.default({ mode: 'auto', top_k: 20, embeddings: false }),
    orchestrator: orchestratorSchema.default({ max_parts: 10, max_steps_per_part: 15, max_adjustment_rounds: 3 }),
  })
  .strict();

/** Validated config values (defaults filled in). */
export type ConfigValues = z.output<typeof configSchema>;
/** The [models] table after validation. */
export type ModelsConfig = z.output<typeof modelsSchema>;
