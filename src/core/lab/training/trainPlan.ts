import { createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../../shared/contract';
import { printable } from '../../../shared/printable';
import { readUserFile } from '../../platform/fs/userFile';
import type { LlmClient } from '../../platform/llm/client';
import type { CallLogger } from '../../platform/llm/types';
import type { TrainingPlan, TrainingPlanArtifact, TrainingStatistics } from '../../../shared/contract/training';
import { extractJsonObject } from '../../platform/llm/replyJson';

/**
 * A stage as the log names it (model_calls.stage: scope, precision_pass1, execute …): lower-case
 * letters, digits and `_`. Curation writes `<stage>.train.jsonl`, so a plan's stage can never be a
 * path (`../../x`, `/etc/y`).
 */
export const trainingStageSchema = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'a stage name as the log writes it: lower-case letters, digits and _, at most 40 (for example scope)');

/** The plan the model writes: which stage, which data, which settings, what improvement to expect. */
export const trainingPlanSchema = z
  .object({
    stage: trainingStageSchema,
    rationale: z.string().min(1).max(20_000),
    data: z
      .object({
        sources: z.array(z.enum(['logged', 'synthetic'])).min(1),
        exclude_default_denied: z.boolean(),
        exclude_failed_runs: z.boolean(),
        balance_labels: z.boolean(),
        max_examples: z.number().int().min(10).max(1_000_000),
        test_fraction: z.number().min(0.05).max(0.5),
        extra_stages: z.array(trainingStageSchema).max(20).default([]),
      })
      .strict(),
    hyperparameters: z
      .object({
        method: z.enum(['lora', 'qlora', 'full', 'dpo']),
        epochs: z.number().int().min(1).max(20),
        learning_rate: z.number().gt(0).max(0.01),
        batch_size: z.number().int().min(1).max(512),
        lora_rank: z.number().int().min(1).max(256).optional(),
      })
      .strict(),
    target: z
      .object({
        metric: z.string().min(1).max(200),
        current: z.number().nullable(),
        goal: z.number(),
      })
      .strict(),
  })
  .strict();

/** A training plan as the model wrote it: the contract's type, which the schema's output must match exactly (a compile error otherwise). */
export type { TrainingPlan };
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _schemaMatchesContract: Same<z.infer<typeof trainingPlanSchema>, TrainingPlan> = true;
void _schemaMatchesContract;

/** The JSON schema sent as structured output (`format`), matching {@link trainingPlanSchema}. */
export const TRAINING_PLAN_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['stage', 'rationale', 'data', 'hyperparameters', 'target'],
  properties: {
    stage: { type: 'string', minLength: 1, maxLength: 40, pattern: '^[a-z][a-z0-9_]{0,39}$' },
    rationale: { type: 'string', minLength: 1, maxLength: 20_000 },
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['sources', 'exclude_default_denied', 'exclude_failed_runs', 'balance_labels', 'max_examples', 'test_fraction'],
      properties: {
        sources: { type: 'array', minItems: 1, items: { type: 'string', enum: ['logged', 'synthetic'] } },
        exclude_default_denied: { type: 'boolean' },
        exclude_failed_runs: { type: 'boolean' },
        balance_labels: { type: 'boolean' },
        max_examples: { type: 'integer', minimum: 10, maximum: 1_000_000 },
        test_fraction: { type: 'number', minimum: 0.05, maximum: 0.5 },
        extra_stages: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 40, pattern: '^[a-z][a-z0-9_]{0,39}$' } },
      },
    },
    hyperparameters: {
      type: 'object',
      additionalProperties: false,
      required: ['method', 'epochs', 'learning_rate', 'batch_size'],
      properties: {
        method: { type: 'string', enum: ['lora', 'qlora', 'full', 'dpo'] },
        epochs: { type: 'integer', minimum: 1, maximum: 20 },
        learning_rate: { type: 'number', exclusiveMinimum: 0, maximum: 0.01 },
        batch_size: { type: 'integer', minimum: 1, maximum: 512 },
        lora_rank: { type: 'integer', minimum: 1, maximum: 256 },
      },
    },
    target: {
      type: 'object',
      additionalProperties: false,
      required: ['metric', 'current', 'goal'],
      properties: { metric: { type: 'string', minLength: 1, maxLength: 200 }, current: { type: ['number', 'null'] }, goal: { type: 'number' } },
    },
  },
} as const;

export type { TrainingPlanArtifact } from '../../../shared/contract/training';

/** The planner's instructions. */
export const TRAIN_PLAN_SYSTEM = [
  'You plan the fine-tuning of small local models that make the binary judgments and edits of a code-retrieval pipeline.',
  'You are given deterministic statistics of its log: per stage, volume, default-deny rate (answers that were neither yes nor no), yes rate, the outcome of the runs its decisions preceded, synthetic examples, disagreement between stages, and the stages ordered weakest first.',
  'Pick ONE stage to train: a stage listed in the statistics that has examples. Prefer the weakest stage with enough examples.',
  'Reply with one JSON object only: {"stage", "rationale": why this stage and this data, citing figures, "data": {"sources": ["logged" and/or "synthetic"], "exclude_default_denied", "exclude_failed_runs", "balance_labels", "max_examples", "test_fraction" (0.05-0.5), "extra_stages": other stages to export too}, "hyperparameters": {"method": "lora"|"qlora"|"full"|"dpo", "epochs", "learning_rate", "batch_size", "lora_rank"}, "target": {"metric": e.g. "default_deny_rate" or "accuracy_on_test", "current": the figure now or null, "goal": the figure to reach}}.',
].join('\n');

/** The user turn: the statistics, compactly. */
export function trainPlanPrompt(stats: TrainingStatistics, problems?: { errors: string[]; reply: string }): string {
  const parts = ['## Statistics', JSON.stringify({ log: stats.log, stages: stats.stages, disagreement: stats.disagreement, weakest: stats.weakest, datasets: stats.datasets }, null, 1)];
  if (problems) parts.push('', '## Your previous reply', problems.reply.slice(0, 4000), '', '## It was invalid', ...problems.errors.map((e) => `- ${e}`), '', 'Reply with the corrected plan as one JSON object only.');
  return parts.join('\n');
}

/** Read a reply: the first JSON object in it (thinking and prose around it ignored), checked by the schema and against the statistics. */
export function readTrainPlanReply(text: string, stats: TrainingStatistics): { ok: true; plan: TrainingPlan } | { ok: false; errors: string[] } {
  const json = extractJsonObject(text);
  if (json === null) return { ok: false, errors: [text.replace(/<think>[\s\S]*?<\/think>/gi, '').includes('{') ? 'the JSON object is cut off' : 'the reply holds no JSON object'] };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return { ok: false, errors: [`the JSON does not parse: ${(error as Error).message}`] };
  }
  const parsed = trainingPlanSchema.safeParse(value);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`) };
  const known = stats.weakest.map((w) => w.stage);
  const errors: string[] = [];
  if (!known.includes(parsed.data.stage)) errors.push(`stage "${parsed.data.stage}" has no examples; pick one of: ${known.join(', ')}`);
  for (const s of parsed.data.data.extra_stages) if (!known.includes(s)) errors.push(`extra stage "${s}" has no examples; pick from: ${known.join(', ')}`);
  return errors.length ? { ok: false, errors } : { ok: true, plan: parsed.data };
}

/** A plan the model could not get right in two attempts. */
export class TrainPlanInvalidError extends AppError {
  constructor(readonly errors: string[]) {
    super('MODEL_ERROR', `The model's training plan was invalid twice; last problems:\n${errors.map((e) => `  - ${e}`).join('\n')}`, { details: { errors } });
    this.name = 'TrainPlanInvalidError';
  }
}

/**
 * Have the reasoning model (stage `train_plan`) write the plan from the statistics: structured
 * output with the plan's JSON schema, validated (zod, and the stage must have examples), one retry
 * that names the problems, then a TrainPlanInvalidError.
 */
export async function writeTrainingPlan(input: { stats: TrainingStatistics; llm: LlmClient; runId?: string; log?: CallLogger; signal?: AbortSignal }): Promise<TrainingPlanArtifact> {
  let problems: { errors: string[]; reply: string } | undefined;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const reply = await input.llm.complete(trainPlanPrompt(input.stats, problems), {
      stage: 'train_plan',
      system: TRAIN_PLAN_SYSTEM,
      format: TRAINING_PLAN_JSON_SCHEMA as unknown as Record<string, unknown>,
      temperature: 0,
      runId: input.runId,
      log: input.log,
      signal: input.signal,
    });
    const read = readTrainPlanReply(reply.text, input.stats);
    if (read.ok) return { version: 1, id: newTrainingPlanId(), createdAt: new Date().toISOString(), model: reply.model, attempts: attempt, statistics: input.stats, plan: read.plan };
    problems = { errors: read.errors, reply: reply.text };
  }
  throw new TrainPlanInvalidError(problems?.errors ?? []);
}

/** A new plan id: the time and a few random hex digits. */
export function newTrainingPlanId(now = new Date()): string {
  return `tp-${now.toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`;
}

/**
 * Write a plan artifact, never half-written (a temporary file, then moved into place). An existing
 * file is refused unless `force`: without it the file is linked into place, which fails rather
 * than replace anything, so a file created meanwhile is not overwritten either. Returns the file.
 */
export function saveTrainingPlan(artifact: TrainingPlanArtifact, file: string, options: { force?: boolean } = {}): string {
  if (!options.force) refuseExistingPlanFile(file);
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(3).toString('hex')}`;
  writeFileSync(tmp, `${JSON.stringify(artifact, null, 2)}\n`, { flag: 'wx' });
  try {
    if (options.force) renameSync(tmp, file);
    else {
      try {
        linkSync(tmp, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') refuseExistingPlanFile(file);
        throw error;
      }
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  return file;
}

/** Refuse to write a plan over an existing file (checked before the model is asked, and again when saving). */
export function refuseExistingPlanFile(file: string): void {
  if (existsSync(file)) throw new AppError('VALIDATION', `${file} already exists; give another --out file, or --force to replace it.`);
}

/** The largest plan file read: a plan with its statistics is a few KiB. */
const MAX_PLAN_BYTES = 1024 * 1024;
const count = z.number().int().min(0);
const rate = z.number().min(0).max(1);
const labelCounts = z.object({ examples: count, yes: count, no: count }).strict();
const statisticsSchema = z
  .object({
    generatedAt: z.string().max(100),
    log: z.object({ rawDatabases: count, calls: count, decisions: count, runs: count }).strict(),
    datasets: z.array(z.object({ id: z.string().max(300), kind: z.enum(['bootstrap', 'curated']), examples: count }).strict()),
    stages: z.array(
      z
        .object({
          stage: z.string().max(200),
          calls: count,
          errorRate: rate,
          meanLatencyMs: z.number().min(0).nullable(),
          judged: count,
          defaultDenyRate: rate,
          yesRate: rate,
          synthetic: labelCounts,
          outcomes: z.object({ success: count, partial: count, failed: count, cancelled: count, running: count, unknown: count }).strict(),
          failedShare: rate.nullable(),
          defaultDenyInFailed: rate.nullable(),
          defaultDenyInSuccess: rate.nullable(),
        })
        .strict(),
    ),
    disagreement: z.array(z.object({ from: z.string().max(200), to: z.string().max(200), items: count, disagreed: count, rate }).strict()),
    weakest: z.array(z.object({ stage: z.string().max(200), score: z.number(), examples: count }).strict()),
  })
  .strict();
/** Every field of a plan file, as saveTrainingPlan writes it: nothing unknown, nothing unchecked. */
const artifactSchema = z
  .object({
    version: z.literal(1),
    id: z.string().regex(/^tp-[A-Za-z0-9-]{1,80}$/, 'a plan id as cra train-plan writes it (tp-<time>-<hex>)'),
    createdAt: z.string().max(100),
    model: z.string().min(1).max(300),
    attempts: z.number().int().min(1).max(2),
    statistics: statisticsSchema,
    plan: trainingPlanSchema,
  })
  .strict();

/**
 * Read a plan artifact file, with its SHA-256; a clear error for a file that is not one. The file
 * is read as a user-named file (a regular file of at most 1 MiB: not a device, a FIFO, a folder),
 * and no error quotes its content: only a file that is a plan artifact at heart (version 1 with a
 * plan) has its problems listed field by field.
 */
export function loadTrainingPlan(file: string): { artifact: TrainingPlanArtifact; sha256: string } {
  const fix = 'give the file cra train-plan wrote';
  if (!existsSync(file)) throw new AppError('NOT_FOUND', `No training plan at ${file}; run cra train-plan to write one.`);
  const bytes = readUserFile(file, { what: 'training plan', maxBytes: MAX_PLAN_BYTES, fix });
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    // JSON.parse's message quotes the text around the error: the first bytes of whatever file was named.
    throw new AppError('VALIDATION', `${file} is not JSON, so it is not a training plan; ${fix}.`);
  }
  const looksLikePlan = typeof json === 'object' && json !== null && (json as { version?: unknown }).version === 1 && typeof (json as { plan?: unknown }).plan === 'object';
  if (!looksLikePlan) throw new AppError('VALIDATION', `${file} is not a training plan (no version 1 plan in it); ${fix}.`);
  const parsed = artifactSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 10).map((i) => printable(`${i.path.join('.') || '(root)'}: ${i.message}`).slice(0, 300));
    throw new AppError('VALIDATION', `${file} is not a valid training plan: ${problems.join('; ')}. ${fix[0]!.toUpperCase()}${fix.slice(1)}.`, { details: { problems } });
  }
  return { artifact: parsed.data as TrainingPlanArtifact, sha256: createHash('sha256').update(bytes).digest('hex') };
}
