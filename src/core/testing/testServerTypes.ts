/**
 * Types of the loopback model test server (test support only; product code never imports
 * anything under src/core/testing).
 */

/** A fault a scripted reply can inject. */
export type ReplyFault = 'http500' | 'http429' | 'malformed' | 'reset' | 'stall' | 'unknownModel';

/** One scripted model reply, consumed in order by chat, generate and /v1/chat/completions. */
export interface ScriptedReply {
  /** The whole reply; default `echo: <last user message>`. */
  text?: string;
  /** Streamed deltas; default: the text split into words. */
  chunks?: string[];
  promptTokens?: number;
  completionTokens?: number;
  fault?: ReplyFault;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer only once this settles (a test decides when a call in flight may end: a run still going, seen from a second window). */
  holdUntil?: Promise<unknown>;
  /** Wait this long between streamed chunks. */
  chunkDelayMs?: number;
  /**
   * Streamed replies: hold the rest of the reply after the first chunk until this settles (a test
   * decides when a call in flight may go on: two calls streaming at once, Stop mid-stream).
   */
  holdAfterFirst?: Promise<unknown>;
  /**
   * Reasoning a thinking model (qwen3) emits before its answer: inline as `<think>…</think>` in
   * the content when the request does not mention thinking, in the separate `thinking` field when
   * an Ollama request sets `think: true`, and not at all when it sets `think: false` (OpenAI
   * side: `chat_template_kwargs.enable_thinking: false`). Its tokens count against the limit.
   */
  thinking?: string;
  /**
   * The answer when the request asks for structured output (`format` on Ollama,
   * `response_format` on the OpenAI side) and the model/server supports it: sent as JSON, and
   * checked against the request's schema (a script that breaks its own schema is a test bug).
   * Without it the reply is `text` whatever the request asked (a server ignoring `format`).
   */
  json?: unknown;
  /** Force the finish reason (`length`: cut off); otherwise `length` only when the token limit cut the reply. */
  doneReason?: 'stop' | 'length';
  /**
   * Log-probabilities of the answer's tokens, returned only when the request asks for them
   * (replacing the answer's default tokens, so script the whole answer). Default when asked:
   * each emitted token with log-probability −0.01 and itself as the only alternative.
   */
  logprobs?: TestTokenLogprob[];
}

/** One token's log-probability and its top alternatives, as the server reports them. */
export interface TestTokenLogprob {
  token: string;
  logprob: number;
  top?: Array<{ token: string; logprob: number }>;
}

/** A model as the server reports it. */
export interface TestModel {
  name: string;
  /** Bytes on disk. */
  size: number;
  family: string;
  parameterSize: string;
  quantization: string;
  contextLength: number;
}

/** A model that can be pulled: its layers (digest and size) and what it becomes once installed. */
export interface TestRegistryEntry {
  model: TestModel;
  layers: Array<{ digest: string; size: number }>;
}

/** Pull pacing and one-shot pull faults. */
export interface PullScript {
  /** Bytes per progress line. */
  chunkBytes: number;
  /** Milliseconds between progress lines. */
  delayMs: number;
  /** Drop the connection once this many bytes were reported in one request (one-shot). */
  interruptAfterBytes?: number;
  /** Stop sending (keep the connection open) after this many bytes in one request (one-shot). */
  stallAfterBytes?: number;
  /** Called when a pull request starts and when the server starts a stall (a test drives its clock by them). */
  onStart?: () => void;
  onStall?: () => void;
  /** Fail with Ollama's "no space left on device" after this many bytes (one-shot). */
  diskFullAfterBytes?: number;
}

/** Everything a test can script. Mutate `server.script` between calls. */
export interface TestServerScript {
  version: string;
  chat: ScriptedReply[];
  /**
   * Replies chosen by the request's last user message (tried before `chat`; undefined falls back
   * to it): for concurrent calls, whose arrival order is not fixed.
   */
  respond?: (prompt: string) => ScriptedReply | undefined;
  /** Faults for the next embed calls, consumed in order. */
  embedFaults: ReplyFault[];
  embedDimensions: number;
  pull: PullScript;
}

/** One request the server saw (tests assert on what the client sent). */
export interface SeenRequest {
  method: string;
  path: string;
  body: unknown;
  /** True once the client closed the connection before the reply ended (a cancelled call). */
  aborted?: boolean;
}
