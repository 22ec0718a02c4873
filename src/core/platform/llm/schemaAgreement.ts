/**
 * Whether a JSON schema sent to a model carries every constraint its zod validator enforces. With
 * a grammar (the built-in runtime) or a server's structured output the schema is the validity
 * rule: a constraint the validator checks but the schema lacks lets an obedient model fail
 * validation. Compares the schema with the validator's own JSON schema (z.toJSONSchema, input
 * side), keyword by keyword, at every path.
 */
import { z } from 'zod';

/** The keywords compared (constraints a grammar or a structured-output server can enforce). */
const KEYWORDS = ['type', 'enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'required', 'additionalProperties'] as const;

type Json = Record<string, unknown>;

/** Path → the compared keywords of the (sub)schema there; arrays' items at `path[]`. */
export function constraintsByPath(schema: Json, path = '$', out: Record<string, Json> = {}): Record<string, Json> {
  const picked: Json = {};
  for (const k of KEYWORDS) {
    let v = schema[k];
    if (v === undefined) continue;
    if (k === 'required' && Array.isArray(v)) v = [...v].sort();
    // The validator's "integer" also says type; zod writes safe-integer bounds we do not ask of a model.
    if ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) >= Number.MAX_SAFE_INTEGER) continue;
    picked[k] = v;
  }
  out[path] = picked;
  const props = schema.properties as Record<string, Json> | undefined;
  for (const [name, sub] of Object.entries(props ?? {})) constraintsByPath(sub, `${path}.${name}`, out);
  if (schema.items && typeof schema.items === 'object') constraintsByPath(schema.items as Json, `${path}[]`, out);
  return out;
}

/** Constraints the validator enforces that the sent schema lacks or states differently: one line per path and keyword (a schema may be stricter, e.g. require what the validator defaults). */
export function schemaDifferences(sent: Json, validator: z.ZodType): string[] {
  const expected = constraintsByPath(z.toJSONSchema(validator, { io: 'input', unrepresentable: 'any' }) as Json);
  const actual = constraintsByPath(sent);
  const out: string[] = [];
  for (const path of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    const e = expected[path] ?? {};
    const a = actual[path] ?? {};
    for (const k of Object.keys(e)) {
      // The schema may demand more properties than the validator (which fills defaults), never fewer.
      const agrees = k === 'required' ? (e[k] as string[]).every((r) => (a[k] as string[] | undefined)?.includes(r)) : JSON.stringify(e[k]) === JSON.stringify(a[k]);
      if (!agrees) out.push(`${path} ${k}: validator ${JSON.stringify(e[k])}, schema sent ${JSON.stringify(a[k])}`);
    }
  }
  return out;
}
