/**
 * llama.cpp refuses a grammar whose nested repetitions multiply past its limits ("number of rules
 * that are going to be repeated multiplied by the new repetition exceeds sane defaults"): the plan
 * schema's arrays of up to 50 objects holding strings of up to 2,000 characters are such a case.
 * When that happens the grammar is built from the schema without its large upper bounds — every
 * enum, required key, type and lower bound stays, so the reply still has the schema's shape — and
 * the reply's validation (zod, the same bounds) still refuses one that runs past them.
 */

/** Upper bounds at most this large are kept in the grammar. */
const KEEP_UP_TO = 64;

/** The schema with every maxLength / maxItems above {@link KEEP_UP_TO} removed, at any depth. */
export function withoutLargeBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutLargeBounds);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'maxLength' || key === 'maxItems') && typeof value === 'number' && value > KEEP_UP_TO) continue;
    out[key] = withoutLargeBounds(value);
  }
  return out;
}
