/**
 * Every JSON schema we send as structured output carries each constraint its zod validation
 * enforces: with a grammar (built-in runtime) or a server's structured output, the schema is the
 * validity rule, so a missing bound lets an obedient model fail validation (train-plan's
 * learning_rate ≤ 0.01 was such a case).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PLAN_JSON_SCHEMA, planSchema } from '../../../shared/contract/plans';
import { FILE_DESCRIPTION_JSON_SCHEMA, fileDescriptionSchema } from '../../knowledge/enrich/describe';
import { TRAINING_PLAN_JSON_SCHEMA, trainingPlanSchema } from '../../lab/training/trainPlan';
import { passFormat, SOLVE_SCHEMAS } from '../../features/plans/solvePasses';
import { ANSWER_SCHEMA, readAnswer } from '../../features/retrieval/judge';
import { ENRICHMENT_JSON_SCHEMA, enrichmentSchema } from '../../features/retrieval/taskAnalysis';
import { constraintsByPath, schemaDifferences } from './schemaAgreement';

const verdictSchema = z.object({ answer: z.enum(['yes', 'no']) });

const SENT: Array<[string, Record<string, unknown>, z.ZodType]> = [
  ['plan', PLAN_JSON_SCHEMA as unknown as Record<string, unknown>, planSchema],
  ['train-plan', TRAINING_PLAN_JSON_SCHEMA as unknown as Record<string, unknown>, trainingPlanSchema],
  ['enrich (task analysis)', ENRICHMENT_JSON_SCHEMA as unknown as Record<string, unknown>, enrichmentSchema],
  ['enrich (file description)', FILE_DESCRIPTION_JSON_SCHEMA as unknown as Record<string, unknown>, fileDescriptionSchema],
  ['verdict', ANSWER_SCHEMA as unknown as Record<string, unknown>, verdictSchema],
  ...Object.entries(SOLVE_SCHEMAS).map(([name, schema]): [string, Record<string, unknown>, z.ZodType] => [`solve ${name}`, passFormat(schema), schema]),
];

describe('structured-output schemas carry their validators’ constraints', () => {
  it.each(SENT)('%s', (_name, sent, validator) => {
    expect(schemaDifferences(sent, validator)).toEqual([]);
  });

  it('train-plan states learning_rate in (0, 0.01], as its validation checks at the bounds', () => {
    const lr = constraintsByPath(TRAINING_PLAN_JSON_SCHEMA as unknown as Record<string, unknown>)['$.hyperparameters.learning_rate'];
    expect(lr).toMatchObject({ exclusiveMinimum: 0, maximum: 0.01 });
    const lrOk = (v: number) => trainingPlanSchema.shape.hyperparameters.shape.learning_rate.safeParse(v).success;
    expect([lrOk(0.01), lrOk(0.0100001), lrOk(0), lrOk(1e-6)]).toEqual([true, false, false, true]);
  });

  it('the verdict schema admits exactly what the judge reads', () => {
    for (const answer of ['yes', 'no', 'maybe', 'Yes']) {
      const read = readAnswer(JSON.stringify({ answer })).verdict !== undefined;
      const inSchema = (ANSWER_SCHEMA.properties.answer.enum as readonly string[]).includes(answer);
      // "Yes" is read case-insensitively but never produced under the schema: the schema may be stricter.
      if (inSchema) expect(read).toBe(true);
      else if (answer === 'maybe') expect(read).toBe(false);
    }
  });

  it('finds a missing bound (the check itself)', () => {
    expect(schemaDifferences({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, z.object({ n: z.number().int().max(5) }))).toEqual(['$.n maximum: validator 5, schema sent undefined']);
  });
});
