import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/contract';
import type { LlmClient } from '../llm/client';
import type { CallLogger } from '../llm/types';
import type { TrainingStatistics } from './trainStats';
import { extractJsonObject } from '../llm/replyJson';

/** The plan the model writes: which stage, which data, which settings, what improvement to expect. */
export const trainingPlanSchema = z
  .object({
    stage: z.string().min(1),
    rationale: z.string().min(1),
    data: z
      .object({
        sources: z.array(z.enum(['logged', 'synthetic'])).min(1),
        exclude_default_denied: z.boolean(),
        exclude_failed_runs: z.boolean(),
        balance_labels: z.boolean(),
        max_examples: z.number().int().min(10).max(1_000_000),
        test_fraction: z.number().min(0.05).max(0.5),
        extra_stages: z.array(z.string()).default([]),
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
        metric: z.string().min(1),
        current: z.number().nullable(),
        goal: z.number(),
      })
      .strict(),
  })
  .strict();

/** A training plan as the model wrote it. */
export type TrainingPlan = z.infer<typeof trainingPlanSchema>;

/** The JSON schema sent as structured output (`format`), matching {@link trainingPlanSchema}. */
export const TRAINING_PLAN_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['stage', 'rationale', 'data', 'hyperparameters', 'target'],
  properties: {
    stage: { type: 'string', minLength: 1 },
    rationale: { type: 'string', minLength: 1 },
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
        extra_stages: { type: 'array', items: { type: 'string' } },
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
      properties: { metric: { type: 'string', minLength: 1 }, current: { type: ['number', 'null'] }, goal: { type: 'number' } },
    },
  },
} as const;

/** The training plan artifact: the statistics it was written from, the plan, who wrote it. */
export interface TrainingPlanArtifact {
  version: 1;
  id: string;
  createdAt: string;
  model: string;
  /** 2 when the first reply was invalid and the retry was not. */
  attempts: number;
  statistics: TrainingStatistics;
  plan: TrainingPlan;
}

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

/** Where plans are saved by default: `<data dir>/training/plans/<id>.json`. */
export function defaultPlanFile(dataDir: string, id: string): string {
  return join(dataDir, 'training', 'plans', `${id}.json`);
}

/** Write a plan artifact (temp file + rename: never half-written); returns the file. */
export function saveTrainingPlan(artifact: TrainingPlanArtifact, file: string): string {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(artifact, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}

const artifactSchema = z.object({ version: z.literal(1), id: z.string().min(1), createdAt: z.string(), model: z.string(), attempts: z.number(), statistics: z.record(z.string(), z.unknown()), plan: trainingPlanSchema }).passthrough();

/** Read a plan artifact file, with its SHA-256; a clear error for a file that is not one. */
export function loadTrainingPlan(file: string): { artifact: TrainingPlanArtifact; sha256: string } {
  if (!existsSync(file)) throw new AppError('NOT_FOUND', `No training plan at ${file}; run cra train-plan to write one.`);
  const text = readFileSync(file, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AppError('VALIDATION', `${file} is not JSON (${(error as Error).message}); give the file cra train-plan wrote.`);
  }
  const parsed = artifactSchema.safeParse(json);
  if (!parsed.success) throw new AppError('VALIDATION', `${file} is not a training plan: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}. Give the file cra train-plan wrote.`);
  return { artifact: parsed.data as unknown as TrainingPlanArtifact, sha256: createHash('sha256').update(text).digest('hex') };
}
