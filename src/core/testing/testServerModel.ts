/**
 * How the loopback test server's scripted "model" generates (test support only): thinking blocks,
 * the token limit with its `length` finish, structured output against the request's schema and
 * token log-probabilities — the behaviours of small local models (Qwen3 0.6B–4B, Qwen2.5-Coder)
 * that the product's parsers must survive. Both the Ollama and the OpenAI-compatible routes use it.
 */
import { estimateTokens, replyChunks } from './testServerUtil';
import type { ScriptedReply, TestTokenLogprob } from './testServerTypes';

/** What a request asked of the model, normalised across the two protocols. */
export interface GenerationRequest {
  prompt: string;
  /** inline: `<think>…</think>` in the content; separate: a `thinking` field; off: no thinking. */
  think: 'inline' | 'separate' | 'off';
  /** A JSON schema, or `json` for any JSON object; absent for free text. */
  format?: Record<string, unknown> | 'json';
  /** The token limit (num_predict / max_tokens); absent or ≤ 0 for none. */
  maxTokens?: number;
  /** Alternatives per token when log-probabilities were asked for; absent when not. */
  topLogprobs?: number;
}

/** One generation: what the server sends, streamed or whole. */
export interface Generation {
  /** Reasoning for the separate field ('' when none or inline). */
  thinking: string;
  /** Content tokens in order (an inline thinking block included); joined they are the content. */
  tokens: string[];
  doneReason: 'stop' | 'length';
  promptTokens: number;
  completionTokens: number;
  /** Per content token, when the request asked. */
  logprobs?: Array<{ token: string; logprob: number; top_logprobs: Array<{ token: string; logprob: number }> }>;
}

/** Split JSON text the way a BPE tokenizer roughly does: words apart from punctuation runs. */
function jsonTokens(text: string): string[] {
  return text.match(/[A-Za-z0-9_]+|[^A-Za-z0-9_]+/g) ?? [''];
}

/** Generate a scripted reply for a request; throws (a test bug) when a script breaks the request's schema. */
export function generate(reply: ScriptedReply, request: GenerationRequest): Generation {
  const structured = request.format !== undefined && reply.json !== undefined;
  let answer: string[];
  const scripted: TestTokenLogprob[] | undefined = reply.logprobs;
  if (scripted) answer = scripted.map((t) => t.token);
  else if (structured) answer = jsonTokens(JSON.stringify(reply.json));
  else {
    const text = reply.text ?? (reply.chunks ? reply.chunks.join('') : `echo: ${request.prompt.slice(0, 60)}`);
    answer = reply.chunks ?? replyChunks(text);
  }
  if (structured) {
    const problem = schemaProblem(JSON.parse(answer.join('')) as unknown, request.format === 'json' ? { type: 'object' } : (request.format as Schema), '$');
    if (problem) throw new Error(`the scripted json breaks the request's schema: ${problem}`);
  }
  const thinkTokens = reply.thinking && request.think !== 'off' ? replyChunks(reply.thinking) : [];
  const inline = request.think === 'inline' && thinkTokens.length > 0 ? ['<think>\n', ...thinkTokens, '\n</think>\n\n'] : [];
  const separate = request.think === 'separate' ? thinkTokens : [];
  let content = [...inline, ...answer];
  let doneReason: 'stop' | 'length' = reply.doneReason ?? 'stop';
  const limit = request.maxTokens && request.maxTokens > 0 ? request.maxTokens : Infinity;
  // Thinking is generated first and counts against the limit: a small limit cuts a thinking model off mid-thought.
  let thinking = separate;
  if (separate.length + content.length > limit) {
    doneReason = 'length';
    thinking = separate.slice(0, limit);
    content = content.slice(0, Math.max(0, limit - separate.length));
  }
  const gen: Generation = {
    thinking: thinking.join(''),
    tokens: content,
    doneReason,
    promptTokens: reply.promptTokens ?? estimateTokens(request.prompt),
    completionTokens: reply.completionTokens ?? thinking.length + content.length,
  };
  if (request.topLogprobs !== undefined) {
    const top = request.topLogprobs;
    // Scripted entries describe the answer's tokens; the inline thinking block gets defaults.
    gen.logprobs = content.map((token, i) => {
      const entry = i >= inline.length ? scripted?.[i - inline.length] : undefined;
      const logprob = entry?.logprob ?? -0.01;
      return { token, logprob, top_logprobs: (entry?.top ?? [{ token, logprob }]).slice(0, top) };
    });
  }
  return gen;
}

/** The subset of JSON Schema the test server checks: type, enum, properties, required, items, additionalProperties. */
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The first way `value` breaks `schema`, or undefined when it conforms. */
export function schemaProblem(value: unknown, schema: Schema, at: string): string | undefined {
  const actual = typeOf(value);
  if (schema.type) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number'))) return `${at} is ${actual}, not ${allowed.join('|')}`;
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) return `${at} is ${JSON.stringify(value)}, not one of ${JSON.stringify(schema.enum)}`;
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in obj)) return `${at}.${key} is missing`;
    for (const [key, v] of Object.entries(obj)) {
      const sub = schema.properties?.[key];
      if (sub) {
        const problem = schemaProblem(v, sub, `${at}.${key}`);
        if (problem) return problem;
      } else if (schema.additionalProperties === false) return `${at}.${key} is not allowed`;
    }
  }
  if (actual === 'array' && schema.items) {
    for (const [i, v] of (value as unknown[]).entries()) {
      const problem = schemaProblem(v, schema.items, `${at}[${i}]`);
      if (problem) return problem;
    }
  }
  return undefined;
}
