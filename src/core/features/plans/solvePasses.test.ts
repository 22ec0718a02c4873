import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { partPlanSchema } from '../../../shared/contract/plansRuns';
import { clientFromToml, loopbackToml, useLoopbackModels } from '../../testing/loopbackModels';
import { passFormat, structuredPass } from './solvePasses';

const m = useLoopbackModels({ 'qwen3:0.6b': {} });

describe('structured passes', () => {
  it('ask for the schema as JSON schema, built once per schema and reused by every later pass', async () => {
    const llm = clientFromToml(loopbackToml(m.server.url), m.db);
    const complete = vi.spyOn(llm, 'complete');
    const plan = { steps: [{ id: 's1', description: 'add mul', files: ['lib/math.js'], expected_outcome: 'mul exists' }], rationale: 'one step' };
    m.server.script.respond = () => ({ json: plan });
    const pass = () => structuredPass({ llm, runId: 'r' }, { system: 'plan', prompt: 'plan it', schema: partPlanSchema, check: () => [], attempts: 1 });
    const [first, second] = [await pass(), await pass()];
    expect(first).toMatchObject({ ok: true, value: plan });
    expect(second).toMatchObject({ ok: true, value: plan });
    const formats = complete.mock.calls.map((c) => c[1]?.format);
    expect(formats[0]).toEqual(z.toJSONSchema(partPlanSchema, { io: 'input', unrepresentable: 'any' }));
    expect(formats[1]).toBe(formats[0]);
    expect(passFormat(partPlanSchema)).toBe(formats[0]);
    // What the server was sent: the same schema both times.
    const sent = m.server.requests.map((r) => (r.body as { format?: unknown }).format);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    expect(sent[0]).toEqual(formats[0]);
  });
});
