/**
 * The model side of the solve orchestrator's passes (docs/design.md, The solve orchestrator): what each pass is shown and how
 * its reply is read. Each pass is stateless: it sees only what the orchestrator hands it here, and
 * the orchestrator alone decides what happens with the result.
 */
import { z } from 'zod';
import {
  metaPlanSchema,
  partPlanSchema,
  planAdjustmentSchema,
  type MetaPlan,
  type MetaPlanPart,
  type PartPlan,
  type PlanAdjustment,
  type PlanStep,
} from '../../../shared/contract/plansRuns';
import type { LlmClient } from '../../platform/llm/client';
import type { CallLogger } from '../../platform/llm/types';
import { extractJsonObject } from '../../platform/llm/replyJson';

/** Where a pass's calls go: the client, the pass's run id (its task_runs row) and log. */
export interface PassCall {
  llm: LlmClient;
  runId: string;
  log?: CallLogger;
  signal?: AbortSignal;
}

/** A structured pass's outcome: the value, or the last attempt's problems. */
export type PassReading<T> = { ok: true; value: T; attempts: number; model: string } | { ok: false; errors: string[]; attempts: number };

/** Cut a long text for a prompt, saying how much was left out. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters not shown)`;
}

/** Read a JSON reply with a zod schema, then the orchestrator's own checks (limits, edges). */
export function readStructured<T>(reply: string, schema: z.ZodType<T>, check: (value: T) => string[]): { ok: true; value: T } | { ok: false; errors: string[] } {
  const json = extractJsonObject(reply);
  if (json === null) return { ok: false, errors: ['the reply has no complete JSON object; reply with one JSON object only'] };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    return { ok: false, errors: [`the JSON object does not parse: ${(error as Error).message}`] };
  }
  const shape = schema.safeParse(raw);
  if (!shape.success) return { ok: false, errors: shape.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`) };
  const errors = check(shape.data);
  return errors.length ? { ok: false, errors } : { ok: true, value: shape.data };
}

/** The structured-output schema of each pass schema, built once: building it cost ~0.4 ms per plan or adjustment pass. */
const formats = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The JSON schema a structured pass asks the server to follow (the same object for every pass of one schema). */
export function passFormat(schema: z.ZodType): Record<string, unknown> {
  let format = formats.get(schema);
  if (!format) {
    format = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    formats.set(schema, format);
  }
  return format;
}

/**
 * One structured plan-mode pass: ask the reasoning model (stage `plan`, structured output with the
 * schema), read and check the reply; an invalid reply is retried with its problems named, up to
 * `attempts` calls in all.
 */
export async function structuredPass<T>(call: PassCall, spec: { system: string; prompt: string; schema: z.ZodType<T>; check: (value: T) => string[]; attempts: number }): Promise<PassReading<T>> {
  const format = passFormat(spec.schema);
  let problems: { errors: string[]; reply: string } | undefined;
  for (let attempt = 1; attempt <= spec.attempts; attempt++) {
    const prompt = problems
      ? `${spec.prompt}\n\n## Your previous reply\n${clip(problems.reply, 6000)}\n\n## It was invalid\n${problems.errors.map((e) => `- ${e}`).join('\n')}\n\nReply with the corrected JSON object only.`
      : spec.prompt;
    const reply = await call.llm.complete(prompt, { stage: 'plan', system: spec.system, format, temperature: 0, runId: call.runId, log: call.log, signal: call.signal });
    const reading = readStructured(reply.text, spec.schema, spec.check);
    if (reading.ok) return { ok: true, value: reading.value, attempts: attempt, model: reply.model };
    problems = { errors: reading.errors, reply: reply.text };
  }
  return { ok: false, errors: problems?.errors ?? [], attempts: spec.attempts };
}

const NO_CODE = 'Never write code: say what changes and why. Reply with one JSON object only.';

/** System prompts of the plan-mode passes. */
export const SOLVE_SYSTEM = {
  meta_plan: `You split a coding task on a repository into a few logical parts, each doable on its own after the parts it depends on. ${NO_CODE} {"task_summary", "parts": [{"id", "title", "description", "files": [paths], "depends_on": [part ids]}]}`,
  part_plan: `You plan one part of a coding task as small ordered implementation steps, each one change a coding model can make at once. ${NO_CODE} {"steps": [{"id", "description", "files": [paths], "symbol", "expected_outcome"}], "rationale"}`,
  adjustment: `You revise the remaining steps of a plan after a step was implemented. Keep a step that still fits as it is; change, add or remove steps only when the results call for it. ${NO_CODE} {"rationale", "remaining_steps": [{"id", "description", "files", "symbol", "expected_outcome"}]}`,
  implement:
    'You are a careful coding model. Make exactly the change the step asks for, nothing more. Reply with edits only, either as search/replace blocks (the file path on its own line, then <<<<<<< SEARCH, the exact current lines, =======, the new lines, >>>>>>> REPLACE; an empty SEARCH creates a new file) or as a unified diff (--- a/path, +++ b/path, @@ hunks). Copy SEARCH and context lines exactly from the files shown.',
} as const;

/** The header every solve prompt starts with, so a log reader (and the loopback test server) can tell the passes apart. */
export const passHeader = (type: keyof typeof SOLVE_SYSTEM) => `## Pass: ${type}`;

const stepLine = (s: PlanStep, mark = '') => `- ${mark}[${s.id}] ${s.description}${s.files.length ? ` (files: ${s.files.join(', ')})` : ''}${s.symbol ? ` (symbol: ${s.symbol})` : ''}${s.expected_outcome ? ` → ${s.expected_outcome}` : ''}`;

/** Meta-plan prompt: the task and the files retrieval found. */
export function metaPlanPrompt(task: string, context: string, maxParts: number): string {
  return [passHeader('meta_plan'), '## Task', task, '', `At most ${maxParts} parts; one part is fine for a small task. Part ids are short (p1, p2, …).`, '', '## Repository context', context].join('\n');
}

/** Part-plan prompt: the part, what earlier parts changed, the context. */
export function partPlanPrompt(input: { task: string; part: MetaPlanPart; cumulativeDiff: string; context: string; maxSteps: number }): string {
  const { part } = input;
  return [
    passHeader('part_plan'),
    '## Task',
    input.task,
    '',
    `## Part ${part.id}: ${part.title}`,
    part.description,
    part.files.length ? `Files: ${part.files.join(', ')}` : '',
    '',
    `At most ${input.maxSteps} steps. Step ids are short (s1, s2, …).`,
    '',
    '## Changes made so far',
    input.cumulativeDiff ? clip(input.cumulativeDiff, 12000) : '(none)',
    '',
    '## Repository context',
    input.context,
  ].join('\n');
}

/** Adjustment prompt: the original part plan, the results so far, the cumulative diff. */
export function adjustmentPrompt(input: { task: string; part: MetaPlanPart; plan: PartPlan; done: Array<{ step: PlanStep; status: string; error?: string }>; remaining: PlanStep[]; cumulativeDiff: string; maxSteps: number }): string {
  return [
    passHeader('adjustment'),
    '## Task',
    input.task,
    '',
    `## Part ${input.part.id}: ${input.part.title}`,
    '',
    '## The original plan',
    ...input.plan.steps.map((s) => stepLine(s)),
    '',
    '## Steps done',
    ...input.done.map(({ step, status, error }) => `${stepLine(step)} — ${status}${error ? `: ${error}` : ''}`),
    '',
    '## Remaining steps',
    ...(input.remaining.length ? input.remaining.map((s) => stepLine(s)) : ['(none)']),
    '',
    `Reply with the remaining steps as they should now be (at most ${input.maxSteps - input.done.length}; an empty list when the part is done). Keep the ids of steps you keep; give new steps new ids.`,
    '',
    '## Changes made so far',
    input.cumulativeDiff ? clip(input.cumulativeDiff, 12000) : '(none)',
  ].join('\n');
}

/** Implement prompt: one step, constrained by its plan, with the context and the previous attempt's failure. */
export function implementPrompt(input: { task: string; step: PlanStep; planText: string; cumulativeDiff: string; context: string; retry?: string }): string {
  return [
    passHeader('implement'),
    '## Task',
    input.task,
    '',
    '## The plan (follow it; do only the current step)',
    input.planText,
    '',
    '## Current step',
    stepLine(input.step),
    '',
    '## Changes made so far',
    input.cumulativeDiff ? clip(input.cumulativeDiff, 12000) : '(none)',
    '',
    '## Files (current content)',
    input.context,
    ...(input.retry ? ['', '## Your previous attempt failed', input.retry, '', 'Fix it with new edits against the files as shown above.'] : []),
  ].join('\n');
}

/** A part plan as the implement prompt shows it, the current step marked. */
export function partPlanText(part: Pick<MetaPlanPart, 'id' | 'title' | 'description'>, steps: PlanStep[], current: string): string {
  return [`Part ${part.id}: ${part.title} — ${part.description}`, ...steps.map((s) => stepLine(s, s.id === current ? '→ ' : ''))].join('\n');
}

/** The schemas the passes are read with (exported for tests and the editor). */
export const SOLVE_SCHEMAS = { meta_plan: metaPlanSchema, part_plan: partPlanSchema, adjustment: planAdjustmentSchema } as const;
export type { MetaPlan, PartPlan, PlanAdjustment };
