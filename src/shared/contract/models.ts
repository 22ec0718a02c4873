import { z } from 'zod';
import { event, request } from './define';
import type { RunStarted, Sequenced } from './runInfo';
import { MODEL_STAGES } from './stages';

/** The stages a model can be assigned to live in stages.ts, with the pipeline's other stage lists. */
export { MODEL_STAGES };
/** The model roles of [models]. */
export const MODEL_ROLES = ['coding', 'reasoning', 'embedding'] as const;

/** What the status bar and the Models page say about the model server; config_invalid: the config that names it does not load. */
export type ModelServerState = 'running' | 'starting' | 'not_running' | 'not_installed' | 'unreachable' | 'config_invalid';

/** Health of the model server (Ollama or an OpenAI-compatible server). */
export interface ModelServerStatus {
  state: ModelServerState;
  reachable: boolean;
  provider: 'ollama' | 'openai_compat' | 'builtin';
  /** The server's version when it answered. */
  version?: string;
  /** The `ollama` binary on PATH, when found, and its `--version`. */
  binaryPath?: string;
  binaryVersion?: string;
  /** True when this app started `ollama serve` (and will stop it on quit). */
  startedByUs: boolean;
  address: string;
  /** One line on what to do next (empty when all is well). */
  hint: string;
  checkedAt: string;
}

/** An installed model. */
export interface InstalledModel {
  name: string;
  family?: string;
  parameters?: string;
  quantization?: string;
  sizeBytes: number;
  contextLength?: number;
  loaded: boolean;
  modifiedAt?: string;
  /** Generation or embedding (from the server's capabilities, else the name). */
  capability?: ModelCapability;
}

/** A model loaded in memory. */
export interface LoadedModel {
  name: string;
  sizeBytes: number;
  vramBytes: number;
  expiresAt?: string;
}

/** Everything the server says about one model. */
export interface ModelDetails {
  name: string;
  family?: string;
  parameters?: string;
  quantization?: string;
  contextLength?: number;
  capabilities: string[];
  modelfile?: string;
  template?: string;
  parametersText?: string;
  license?: string;
}

/** How a model compares with this machine's memory. */
export type ModelFit = 'fits' | 'tight' | 'too_large';

/** A model recommended for pipeline roles. */
export interface RecommendedModel {
  name: string;
  purpose: string;
  stages: string[];
  downloadBytes: number;
  /** Memory the model needs when loaded (approximate). */
  memoryBytes: number;
  fit: ModelFit;
  installed: boolean;
  /** Whether it fits beside the models assigned to the stages it would not serve (all loaded at once). */
  alongside?: { models: string[]; memoryBytes: number; fit: ModelFit };
  /** Whether its memory is free right now. */
  fitsFreeNow?: boolean;
}

/** Progress of a model pull, summed over layers. */
export interface ModelPullProgress {
  runId: string;
  model: string;
  phase: string;
  doneBytes: number;
  totalBytes: number;
  percent: number | null;
  bytesPerSecond: number;
  etaSeconds: number | null;
  /** Set when the pull reconnected after an interruption or a stall. */
  retry?: number;
}

/** The model that serves one stage, and where that choice comes from. */
export interface StageAssignment {
  stage: string;
  role: string;
  model: string | null;
  contextWindow: number | null;
  maxTokens: number | null;
  /** override: [models.overrides].<stage>; role: [models].<role>; none: nothing assigned. */
  source: 'override' | 'role' | 'none';
}

/** The assignment table and the config file it lives in. */
export interface ModelAssignments {
  configPath: string;
  configExists: boolean;
  roles: Record<string, string | null>;
  rows: StageAssignment[];
  defaults: { contextWindow: number; maxTokens: number };
}

/** The result of "Test model". */
export interface ModelTestResult {
  model: string;
  text: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

/** Which stages a model can serve: generation (every stage but embedding) or embedding. */
export type ModelCapability = 'generate' | 'embed';

/** One model of a setup proposal, and the stages it would serve. */
export interface SetupModel {
  name: string;
  stages: string[];
  capability: ModelCapability;
  /** Download size (unknown when it could not be read). */
  sizeBytes?: number;
  /** Memory it needs loaded (approximate; unknown with the size). */
  memoryBytes?: number;
  /** Already on this machine: nothing to download. */
  installed: boolean;
  /** Where a built-in model is downloaded from. */
  url?: string;
  /** Context window the setup assigns (built-in models: the model's own, at most 8192). */
  contextWindow?: number;
}

/** What is on this machine and one model per stage that fits it (models/setupPlan, `cra setup`). */
export interface ModelSetupPlan {
  ollama: { state: ModelServerState; address: string; installed: string[] };
  builtin: { available: boolean; reason?: string; installed: string[] };
  memory: { totalBytes: number; freeBytes: number };
  /** Which runtime the setup uses; null when neither can be used (the notes say why). */
  provider: 'ollama' | 'builtin' | null;
  models: SetupModel[];
  /** Bytes to download, and the memory of all proposed models loaded together. */
  downloadBytes: number;
  memoryBytes: number;
  fit: ModelFit;
  /** Stages with no model assigned now (every stage when nothing is configured). */
  missingStages: string[];
  /** One line per thing a person should know (a smaller model chosen to fit, a size not readable, …). */
  notes: string[];
}

/** What a setup run did. */
export interface ModelSetupResult {
  provider: 'ollama' | 'builtin';
  downloaded: string[];
  assigned: Array<{ stage: string; model: string }>;
}

/** Figures of one model on one judging stage of one repository (models/check). */
export interface ModelCheckResult {
  stage: string;
  model: string;
  repoPath: string;
  checkedAt: string;
  /** Judgments asked (yes + no labels); for the plan stage, tasks planned. */
  n: number;
  positives: number;
  /** Null for the plan stage (its figure is validPlanRate). */
  accuracy: number | null;
  balancedAccuracy: number | null;
  /** AUC of P(yes) against the labels; null when the model gave no P(yes). */
  auc: number | null;
  /** Share of answers that were neither yes nor no (taken as no). */
  unusableRate: number;
  p50LatencyMs: number;
  tokensPerSecond: number;
  /** The plan stage: share of valid plans (null for judging stages). */
  validPlanRate?: number | null;
  /** Why a stage could not be checked (no labelled items in the history, …). */
  note?: string;
}

/** What a model serves: the embedding stage needs an embedding model, every other stage a generation model. */
export function stageCapability(stage: string): ModelCapability {
  return stage === 'embedding' ? 'embed' : 'generate';
}

/** A model's capability guessed from its name when the server does not say (embedding models name themselves so). */
export function capabilityOfName(name: string): ModelCapability {
  return /embed|bge-|e5-|minilm|gte-/i.test(name) ? 'embed' : 'generate';
}

/** What a model name may contain; the one rule for requests and for names written in config.toml. */
export const MODEL_NAME_RULE = 'a model name such as qwen3:0.6b (letters, digits and . _ : / @ -, at most 200 characters)';

/** A model name (a tag such as qwen3:0.6b); also validates names written in config.toml. */
export const modelNameSchema = z
  .string({ error: `must be ${MODEL_NAME_RULE}` })
  .trim()
  .min(1, { error: `must be ${MODEL_NAME_RULE}` })
  .max(200, { error: `must be ${MODEL_NAME_RULE}` })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/, { error: `must be ${MODEL_NAME_RULE}` });
const modelName = modelNameSchema;

/** Model manager requests. */
export const modelsRequests = {
  'models/status': request<ModelServerStatus>()('Model server health: reachable, version, binary, who started it, what to do.', () => z.object({}).strict(), {}),
  'models/startServer': request<ModelServerStatus>()(
    'Start `ollama serve` now (the user asked); stopped again on quit because the app started it.',
    () => z.object({}).strict(),
    {},
  ),
  'models/list': request<{ models: InstalledModel[] }>()('Installed models with size, family, parameters, quantization, context length, loaded.', () => z.object({}).strict(), {}),
  'models/show': request<ModelDetails>()('Details of one installed model.', () => z.object({ name: modelName }).strict(), { name: 'clean-room-example:none' }),
  'models/ps': request<{ models: LoadedModel[] }>()('Models loaded in memory.', () => z.object({}).strict(), {}),
  'models/pull': request<RunStarted<'pull'>>()(
    'Download a model; progress arrives as models/pullProgress and run/progress; cancel with run/cancel; pulling again resumes.',
    () => z.object({ name: modelName }).strict(),
    { name: 'clean-room-example:none' },
  ),
  'models/delete': request<{ deleted: true }>()('Delete an installed model.', () => z.object({ name: modelName }).strict(), { name: 'clean-room-example:none' }),
  'models/recommended': request<{ totalMemoryBytes: number; freeMemoryBytes?: number; models: RecommendedModel[] }>()(
    'Models recommended for the pipeline roles, with download size and a fit hint for this machine.',
    () => z.object({}).strict(),
    {},
  ),
  'models/assignments': request<ModelAssignments>()('Which model serves each stage, from the config.', () => z.object({}).strict(), {}),
  'models/assign': request<ModelAssignments>()(
    'Assign a model to a stage (a [models.overrides] entry) or to a role; model null clears the stage override.',
    () => z
      .object({
        stage: z.enum(MODEL_STAGES).optional(),
        role: z.enum(MODEL_ROLES).optional(),
        model: modelName.nullable(),
        contextWindow: z.number().int().positive().optional(),
        maxTokens: z.number().int().positive().optional(),
      })
      .strict()
      .refine((v) => (v.stage === undefined) !== (v.role === undefined), 'give exactly one of stage or role'),
    { stage: 'scope', model: 'qwen3:0.6b', contextWindow: 8192, maxTokens: 16 },
  ),
  'models/assignStages': request<ModelAssignments>()(
    'Assign models to several stages in one write of the config (the Models page\'s one Save); model null clears a stage override.',
    () => z
      .object({
        changes: z
          .array(z.object({ stage: z.enum(MODEL_STAGES), model: modelName.nullable(), contextWindow: z.number().int().positive().optional(), maxTokens: z.number().int().positive().optional() }).strict())
          .min(1)
          .max(MODEL_STAGES.length),
      })
      .strict(),
    { changes: [{ stage: 'scope', model: 'qwen3:0.6b', maxTokens: 16 }] },
  ),
  'models/setupPlan': request<ModelSetupPlan>()(
    'What is on this machine (Ollama, the built-in runtime, free memory) and one model per stage that fits it together.',
    () => z.object({}).strict(),
    {},
  ),
  'models/setup': request<RunStarted<'setup'>>()(
    'Download the proposed models (those not on disk) and assign them to every stage; progress as run/progress; cancel with run/cancel.',
    () => z.object({}).strict(),
    {},
  ),
  'models/check': request<RunStarted<'model-check'>>()(
    'Check the assigned models on a repository: labelled judgments from its own history, run through each judging stage\'s model; figures stored per (stage, model, repository).',
    () => z
      .object({
        repoPath: z.string().min(1).max(4096),
        stage: z.enum(['scope', 'precision', 'plan']).optional(),
        model: modelName.optional(),
        n: z.number().int().min(2).max(1000).default(40),
      })
      .strict(),
    { repoPath: '.', n: 2 },
  ),
  'models/checks': request<{ results: ModelCheckResult[] }>()(
    'Stored results of model checks, newest first (optionally of one repository).',
    () => z.object({ repoPath: z.string().min(1).max(4096).optional() }).strict(),
    {},
  ),
  'models/test': request<ModelTestResult>()(
    'Run one real completion with a model (logged like every call).',
    () => z.object({ model: modelName, prompt: z.string().min(1).max(20_000).default('Say hello in five words.') }).strict(),
    { model: 'clean-room-example:none', prompt: 'Say hello.' },
  ),
} as const;

/** Model manager events. */
export const modelsEvents = {
  'models/serverStatus': event<ModelServerStatus>()('The model server state changed.'),
  'models/pullProgress': event<ModelPullProgress & Sequenced>()('Progress of a pull, summed over layers.'),
} as const;
