/**
 * The two judgments that are not binary (docs/design.md, Binary judgments), each one batched call
 * with structured output: routing (which of the requested stages to run — a set selection) and the
 * over-budget re-filter (which files to keep within the budget — a constrained subset, where
 * keeping one file decides whether another fits). The reply must be the JSON object the schema
 * names; anything else, or a failed call, falls back to the deterministic choice and is logged.
 */
import { AppError } from '../../../shared/contract';
import type { LlmClient } from '../../platform/llm/client';
import type { CallLogger } from '../../platform/llm/types';
import { estimateTokens } from '../../../shared/tokens';
import { DEFAULT_SAFETY_MARGIN } from './budget';

/** One batched selection: the offered items and what the model picked of them. */
export interface Selection {
  /** The items picked, in the offered order; undefined when the reply could not be read (`problem` says why). */
  picked?: string[];
  /** Items the reply named that were not offered (ignored). */
  unknown: string[];
  problem?: string;
  model: string;
  callId?: number;
  promptTokens: number;
  completionTokens: number;
}

/** What a batched selection call needs. */
export interface SelectionCall {
  llm: LlmClient;
  /** routing or refilter: picks the model and names the call in the log. */
  stage: string;
  system: string;
  /** The user turn: the task first, then the offered items. */
  prompt: string;
  /** The items the model may pick (the schema's enum). */
  offered: readonly string[];
  /** The reply's array key (`stages`, `keep`). */
  key: string;
  runId?: string;
  log?: CallLogger;
  signal?: AbortSignal;
}

const FATAL = new Set(['CANCELLED', 'OLLAMA_UNREACHABLE', 'MODEL_NOT_FOUND', 'CONFIG_MISSING', 'CONFIG_INVALID']);

/**
 * One structured call: `{"<key>": [items]}` with the items an enum of what was offered. The reply
 * is read strictly (the whole reply one JSON object with that array of strings); items not offered
 * are ignored and listed. The prompt must fit the model's window with room for the reply (R3): a
 * prompt that does not is refused before the call.
 */
export async function runSelection(call: SelectionCall): Promise<Selection> {
  const model = call.llm.resolve({ stage: call.stage });
  const maxTokens = Math.min(model.maxTokens, 32 + 24 * call.offered.length);
  const promptTokens = estimateTokens(call.system + call.prompt, DEFAULT_SAFETY_MARGIN);
  if (promptTokens + maxTokens > model.contextWindow) {
    return { unknown: [], problem: `prompt of ~${promptTokens} tokens does not fit the ${model.contextWindow}-token window of ${model.model}`, model: model.model, promptTokens: 0, completionTokens: 0 };
  }
  const schema = { type: 'object', properties: { [call.key]: { type: 'array', items: { type: 'string', enum: [...call.offered] } } }, required: [call.key], additionalProperties: false };
  let reply;
  try {
    reply = await call.llm.complete(call.prompt, { stage: call.stage, model, system: call.system, format: schema, think: false, temperature: 0, maxTokens, runId: call.runId, log: call.log, signal: call.signal });
  } catch (error) {
    const code = error instanceof AppError ? error.code : 'INTERNAL';
    if (FATAL.has(code) || call.signal?.aborted) throw error;
    return { unknown: [], problem: `the call failed: ${error instanceof Error ? error.message : String(error)}`, model: model.model, promptTokens: 0, completionTokens: 0 };
  }
  const base = { model: reply.model, ...(reply.callId !== undefined ? { callId: reply.callId } : {}), promptTokens: reply.promptTokens, completionTokens: reply.completionTokens };
  const read = readSelection(reply.text, call.key, reply.doneReason);
  if ('problem' in read) return { ...base, unknown: [], problem: read.problem };
  const offered = new Set(call.offered);
  const named = new Set(read.items);
  return { ...base, picked: call.offered.filter((o) => named.has(o)), unknown: read.items.filter((i) => !offered.has(i)) };
}

/** Read `{"<key>": ["a", "b"]}` strictly: the whole reply one object, the key an array of strings. */
export function readSelection(text: string, key: string, doneReason?: string): { items: string[] } | { problem: string } {
  if (doneReason === 'length') return { problem: 'the reply was cut off by the token limit' };
  const t = text.trim();
  if (!t) return { problem: 'the reply was empty' };
  let json: unknown;
  try {
    json = JSON.parse(t);
  } catch {
    return { problem: 'the reply is not one JSON object' };
  }
  const value = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>)[key] : undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return { problem: `the reply has no "${key}" list of strings` };
  return { items: value as string[] };
}
