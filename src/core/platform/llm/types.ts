import type { Role } from '../config/schema';
import type { ResolvedModel } from './router';

/** A finished completion with exact token counts from the provider's metadata. */
export interface Completion {
  text: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  model: string;
  /** Why generation stopped as the server said it (`stop`, `length` = cut off by the token limit); absent when it did not say. */
  doneReason?: string;
  /** Reasoning the server returned apart from the content (Ollama `think: true`, `reasoning_content`). */
  thinking?: string;
  /** Token log-probabilities of the content, when the call asked for them and the server returned them. */
  logprobs?: TokenLogprob[];
  /** The audit-log row of this call (model_calls.id), when it was logged. */
  callId?: number;
}

/** One generated token with its log-probability and the top alternatives at that position. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  top: Array<{ token: string; logprob: number }>;
}

/** Embeddings of a batch of texts, in input order. */
export interface Embeddings {
  vectors: number[][];
  promptTokens: number;
  latencyMs: number;
  model: string;
}

/** One row of the model-call audit log, written once when the call ends. */
export interface ModelCallRecord {
  runId?: string;
  stage?: string;
  role?: string;
  provider: string;
  baseUrl: string;
  model: string;
  system?: string;
  prompt: string;
  response?: string;
  params: Record<string, unknown>;
  promptTokens?: number;
  completionTokens?: number;
  latencyMs: number;
  errorCode?: string;
  error?: string;
  createdAt: string;
}

/** Where model calls are appended (the raw DB of a repository, or the user-level one). */
export interface CallLogger {
  /** Append one call; returns its row id. */
  append(record: ModelCallRecord): number;
}

/** Per-call options of the client. */
export interface CallOptions {
  /** Role of the call (defaults from the stage: execute → coding, else reasoning). */
  role?: Role;
  /** Pipeline stage (task_analysis, scope, precision_pass1, chat ...); picks a per-stage override. */
  stage?: string;
  /** Use this model instead of routing (e.g. "Test model"). */
  model?: ResolvedModel;
  system?: string;
  signal?: AbortSignal;
  /** The run the call belongs to, for the audit log. */
  runId?: string;
  /** Log to this raw DB instead of the client's default (a repository run passes its own). */
  log?: CallLogger;
  temperature?: number;
  maxTokens?: number;
  /** Overrides the configured per-call timeout. */
  timeoutMs?: number;
  /** Ask for JSON output where the provider supports it. */
  json?: boolean;
  /** Structured output: a JSON schema the reply must follow (Ollama `format`, OpenAI `response_format` json_schema); wins over `json`. */
  format?: Record<string, unknown>;
  /** Thinking models: false asks the server not to think (Ollama `think: false`; OpenAI side `chat_template_kwargs.enable_thinking: false`). */
  think?: boolean;
  /** Ask for token log-probabilities with this many alternatives per token (0 = the chosen token only). */
  logprobs?: number;
}

/** What a provider receives for one chat call. */
export interface ProviderCall {
  model: ResolvedModel;
  system?: string;
  prompt: string;
  temperature: number;
  maxTokens: number;
  json?: boolean;
  format?: Record<string, unknown>;
  think?: boolean;
  logprobs?: number;
  signal: AbortSignal;
  /** Called with each streamed delta; absent for a non-streaming call. */
  onDelta?: (delta: string) => void;
}

/** A model server protocol. */
export interface LlmProvider {
  complete(call: ProviderCall): Promise<Omit<Completion, 'latencyMs' | 'callId'>>;
  embed(model: ResolvedModel, texts: string[], signal: AbortSignal): Promise<Omit<Embeddings, 'latencyMs'>>;
}
