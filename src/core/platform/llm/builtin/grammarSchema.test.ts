import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_JSON_SCHEMA } from '../../../../shared/contract/plans';
import { FILE_DESCRIPTION_JSON_SCHEMA } from '../../../knowledge/enrich/describe';
import { TRAINING_PLAN_JSON_SCHEMA } from '../../../lab/training/trainPlan';
import { passFormat, SOLVE_SCHEMAS } from '../../../features/plans/solvePasses';
import { ANSWER_SCHEMA } from '../../../features/retrieval/judge';
import { ENRICHMENT_JSON_SCHEMA } from '../../../features/retrieval/taskAnalysis';
import { REAL_GGUF_NAME, realGgufRuntime } from '../../../testing/realGguf';
import type { ResolvedModel } from '../router';
import { withoutLargeBounds } from './grammarSchema';

/** Every schema the product sends as structured output (the list of schemaAgreement.test.ts). */
const SENT: Array<[string, Record<string, unknown>]> = [
  ['plan', PLAN_JSON_SCHEMA as unknown as Record<string, unknown>],
  ['train-plan', TRAINING_PLAN_JSON_SCHEMA as unknown as Record<string, unknown>],
  ['enrich (task analysis)', ENRICHMENT_JSON_SCHEMA as unknown as Record<string, unknown>],
  ['enrich (file description)', FILE_DESCRIPTION_JSON_SCHEMA as unknown as Record<string, unknown>],
  ['verdict', ANSWER_SCHEMA as unknown as Record<string, unknown>],
  ...Object.entries(SOLVE_SCHEMAS).map(([name, schema]): [string, Record<string, unknown>] => [`solve ${name}`, passFormat(schema)]),
];

const model: ResolvedModel = { model: REAL_GGUF_NAME, baseUrl: 'builtin', provider: 'builtin', temperature: 0, maxTokens: 6, contextWindow: 512, timeoutMs: 60_000, role: 'reasoning', source: 'role' };
let env: Awaited<ReturnType<typeof realGgufRuntime>>;
beforeAll(async () => {
  env = await realGgufRuntime();
});
afterAll(() => env.dispose());

describe('structured output through the built-in runtime', () => {
  it('drops only upper bounds above 64, at any depth', () => {
    expect(withoutLargeBounds({ type: 'array', maxItems: 100, minItems: 1, items: { type: 'string', minLength: 1, maxLength: 2000, enum: ['a'] } })).toEqual({ type: 'array', minItems: 1, items: { type: 'string', minLength: 1, enum: ['a'] } });
    expect(withoutLargeBounds({ type: 'string', maxLength: 40 })).toEqual({ type: 'string', maxLength: 40 });
  });

  // The plan schema's grammar was refused by llama.cpp ("Failed to parse grammar"), so no plan could be made with the built-in runtime.
  it.each(SENT)('%s: a grammar is built and the real model answers under it', async (_name, schema) => {
    const result = await env.provider.complete({ model, prompt: 'Once upon a time', temperature: 0, maxTokens: 6, format: schema, signal: new AbortController().signal });
    expect(result.completionTokens).toBeGreaterThan(0);
    expect(result.text.startsWith('{')).toBe(true);
  }, 60_000);
});
