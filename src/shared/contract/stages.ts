/**
 * The pipeline's stage names, in one place: config ([models.overrides]), the Models page, retrieve
 * runs, the call log's judgments and the training export all read them from here.
 */
import { z } from 'zod';

/** The pipeline stages a model can be assigned to ([models.overrides] keys). */
export const MODEL_STAGES = ['task_analysis', 'scope', 'precision', 'similarity', 'routing', 'plan', 'execute', 'chat', 'summarize', 'embedding', 'enrich', 'rerank'] as const;
/** One stage a model can be assigned to. */
export type ModelStage = (typeof MODEL_STAGES)[number];
export const modelStageSchema = z.enum(MODEL_STAGES);

/** The stages a retrieve run can be given, in their pipeline order (an explicit, non-empty list). */
export const RETRIEVAL_STAGE_NAMES = ['routing', 'scope', 'similarity', 'precision', 'refilter'] as const;
/** One stage of a retrieve run, by name. */
export type RetrievalStageName = (typeof RETRIEVAL_STAGE_NAMES)[number];
/** The stages run when none are named. */
export const DEFAULT_RETRIEVAL_STAGES: readonly RetrievalStageName[] = ['scope', 'precision'];

/**
 * The stages a retrieval judgment is logged under (model_calls.stage): one per question the judge
 * asks — scope's files, similarity's, precision's three passes, its groups past the symbol caps and
 * its files with no symbol kept.
 */
export const JUDGE_STAGES = ['scope', 'similarity', 'precision_pass1', 'precision_pass2', 'precision_pass3', 'precision_group', 'precision_file'] as const;
/** One stage a judgment is logged under. */
export type JudgeStage = (typeof JUDGE_STAGES)[number];

/**
 * The stages a training dataset has a JSONL file for, named as the pipeline logs its calls
 * (model_calls.stage), so synthetic and logged examples of one stage land in one training file.
 */
export const DATASET_STAGES = ['scope', 'precision_pass1', 'precision_pass2', 'execute'] as const satisfies ReadonlyArray<JudgeStage | ModelStage>;
/** One of {@link DATASET_STAGES}. */
export type DatasetStage = (typeof DATASET_STAGES)[number];
