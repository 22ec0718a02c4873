import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Reason } from '../../../shared/contract/reasons';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../platform/llm/client';
import type { CallLogger } from '../../platform/llm/types';
import { extractTask, type TaskExtraction } from './taskExtract';

export type * from './taskExtract';

/** What the model added to the deterministic analysis (files and symbols checked against the index). */
export interface TaskEnrichment {
  status: 'ok';
  intent: string;
  /** Files the model named that the index has. */
  files: string[];
  /** Files the model named that the index does not have (kept for the audit, never used). */
  unknownFiles: string[];
  /** Symbols the model named that the index defines. */
  symbols: string[];
  concepts: string[];
  /** Model calls made (1, or 2 after a retry). */
  attempts: number;
  callIds: number[];
}

/** Enrichment that did not happen, and why. */
export interface TaskEnrichmentMissing {
  status: 'skipped' | 'failed';
  reason: string;
  attempts: number;
  callIds: number[];
}

/** The task record: the text, the deterministic extraction and the model's enrichment, both kept. */
export interface TaskRecord {
  id: string;
  text: string;
  extraction: TaskExtraction;
  enrichment: TaskEnrichment | TaskEnrichmentMissing;
  /** Files given with the task (a plan's files, a refinement's evidence): scope's tier 0, never judged. */
  givenFiles?: Array<{ path: string; reason: Reason }>;
}

/** What the enrichment call must return. */
export const enrichmentSchema = z.object({
  intent: z.string().min(1).max(500),
  files: z.array(z.string().min(1)).max(30),
  symbols: z.array(z.string().min(1)).max(30),
  concepts: z.array(z.string().min(1)).max(20),
});

/** The JSON schema sent as structured output (the zod schema above validates what comes back). */
export const ENRICHMENT_JSON_SCHEMA = {
  type: 'object',
  properties: {
    intent: { type: 'string', minLength: 1, maxLength: 500 },
    files: { type: 'array', maxItems: 30, items: { type: 'string', minLength: 1 } },
    symbols: { type: 'array', maxItems: 30, items: { type: 'string', minLength: 1 } },
    concepts: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1 } },
  },
  required: ['intent', 'files', 'symbols', 'concepts'],
} as const;

const SYSTEM =
  'You analyse a coding task for a code retrieval system. Reply with JSON only: {"intent": one sentence of what must change, "files": repository paths likely involved, "symbols": function/class names likely involved, "concepts": short domain terms}. Use [] when unsure.';

/** Options of {@link analyzeTask}. */
export interface AnalyzeOptions {
  /** The model client; without it enrichment is skipped (recorded as such). */
  llm?: LlmClient;
  id?: string;
  runId?: string;
  log?: CallLogger;
  signal?: AbortSignal;
}

/**
 * Analyse a task: the deterministic extraction first (files, symbols, errors and stack frames,
 * keywords, task type), then the model's enrichment through a JSON-schema call (stage
 * task_analysis), validated with zod and retried once with the validation error; both kept.
 * A model failure or two invalid replies leave enrichment `failed` with the reason — the
 * deterministic part stands on its own.
 */
export async function analyzeTask(text: string, kb: KnowledgeBase, options: AnalyzeOptions = {}): Promise<TaskRecord> {
  const task = text.trim();
  if (!task) throw new Error('The task is empty: describe what should change.');
  const extraction = extractTask(task, kb);
  const id = options.id ?? randomUUID();
  if (!options.llm) return { id, text: task, extraction, enrichment: { status: 'skipped', reason: 'no model client', attempts: 0, callIds: [] } };
  return { id, text: task, extraction, enrichment: await enrich(task, extraction, kb, options.llm, options) };
}

async function enrich(task: string, extraction: TaskExtraction, kb: KnowledgeBase, llm: LlmClient, options: AnalyzeOptions): Promise<TaskEnrichment | TaskEnrichmentMissing> {
  const known = [
    extraction.files.length ? `Files named: ${extraction.files.map((f) => f.path ?? f.text).join(', ')}` : '',
    extraction.symbols.length ? `Symbols named: ${extraction.symbols.map((s) => s.text).join(', ')}` : '',
    extraction.errors.length ? `Errors: ${extraction.errors.map((e) => `${e.type}: ${e.message}`).join('; ')}` : '',
  ].filter(Boolean);
  let prompt = `Task:\n${task}${known.length ? `\n\n${known.join('\n')}` : ''}`;
  const callIds: number[] = [];
  let problem = '';
  for (let attempt = 1; attempt <= 2; attempt++) {
    let reply;
    try {
      reply = await llm.complete(prompt, { stage: 'task_analysis', system: SYSTEM, format: ENRICHMENT_JSON_SCHEMA as unknown as Record<string, unknown>, think: false, temperature: 0, runId: options.runId, log: options.log, signal: options.signal });
    } catch (error) {
      return { status: 'failed', reason: error instanceof Error ? error.message : String(error), attempts: attempt, callIds };
    }
    if (reply.callId !== undefined) callIds.push(reply.callId);
    const parsed = parseEnrichment(reply.text);
    if (parsed.ok) {
      const files = parsed.value.files.map((f) => ({ f, hit: kb.getFileByPath(f.replace(/^\.\//, '')) }));
      const symbols = parsed.value.symbols.filter((s) => kb.searchSymbolsByName(s, 1).length > 0);
      return {
        status: 'ok',
        intent: parsed.value.intent,
        files: files.filter((x) => x.hit).map((x) => x.hit?.path as string),
        unknownFiles: files.filter((x) => !x.hit).map((x) => x.f),
        symbols,
        concepts: parsed.value.concepts,
        attempts: attempt,
        callIds,
      };
    }
    problem = parsed.error;
    // One retry that says what was wrong; small models fix a named mistake more often than an unnamed one.
    prompt = `${prompt}\n\nYour previous reply was invalid (${problem}). Reply again with the JSON object only.`;
  }
  return { status: 'failed', reason: `invalid reply twice: ${problem}`, attempts: 2, callIds };
}

/** Parse and validate an enrichment reply (thinking blocks and prose around the JSON object tolerated). */
export function parseEnrichment(text: string): { ok: true; value: z.infer<typeof enrichmentSchema> } | { ok: false; error: string } {
  const body = text.replace(/<think>[\s\S]*?<\/think>/gi, '');
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end < start) return { ok: false, error: 'no JSON object' };
  let json: unknown;
  try {
    json = JSON.parse(body.slice(start, end + 1));
  } catch (error) {
    return { ok: false, error: `not JSON: ${(error as Error).message}` };
  }
  const result = enrichmentSchema.safeParse(json);
  if (!result.success) return { ok: false, error: result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
  return { ok: true, value: result.data };
}
