/**
 * The pipeline's stage names, in one place: config ([models.overrides]), the Models page, retrieve
 * runs, the call log's judgments and the training export all read them from here.
 */
import { z } from 'zod';
import { oneOf } from './inputs';

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
 * An explicit stage list, checked once here for every caller: known names, not empty, no repeats,
 * scope present; routing (when listed) first and the re-filter (when listed) last. Each problem
 * names the fix and the names allowed.
 */
export const retrievalStageListSchema = z
  .array(oneOf('a retrieval stage', RETRIEVAL_STAGE_NAMES))
  .min(1, { error: `the stage list is empty: name the stages to run (allowed: ${RETRIEVAL_STAGE_NAMES.join(', ')})` })
  .max(RETRIEVAL_STAGE_NAMES.length, { error: 'the stage list is longer than the stages there are: a stage is listed twice' })
  .superRefine((list, ctx) => {
    const problem = (message: string) => ctx.addIssue({ code: 'custom', message });
    const dup = list.find((n, i) => list.indexOf(n) !== i);
    if (dup) return problem(`retrieval stage "${dup}" is listed twice`);
    if (!list.includes('scope')) return problem(`the stage list must include scope: it finds the files every other stage works on (allowed: ${RETRIEVAL_STAGE_NAMES.join(', ')})`);
    if (list.includes('routing') && list[0] !== 'routing') return problem('routing must come first in the stage list: it chooses which of the later stages run');
    if (list.includes('refilter') && list.at(-1) !== 'refilter') return problem('refilter must come last in the stage list: it fits what the other stages chose into the budget');
  });

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
