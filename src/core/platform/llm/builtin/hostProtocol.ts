/**
 * Messages between the engine and the built-in model runtime's host process (llamaHost.ts), over
 * the child-process IPC channel. Every request carries an id; the host answers each with one
 * `result` or `error` (a streamed completion sends `delta`s first). `abort` stops a request.
 */

/** How the host runs llama.cpp; sent once, first. */
export interface HostSettings {
  /** CPU threads per context (undefined: node-llama-cpp's choice, all cores). */
  threads?: number;
  /** false: CPU only; 'auto': Metal / CUDA / Vulkan where the prebuilt binary supports it. */
  gpu: false | 'auto';
  /** A model unused this long is unloaded (its memory returned). */
  idleMs: number;
}

/** Where a request's model is and how large a context it may use. */
export interface ModelRef {
  path: string;
  contextSize: number;
}

/** One chat completion (system + one user turn). */
export interface CompleteRequest {
  type: 'complete';
  id: number;
  model: ModelRef;
  system?: string;
  prompt: string;
  temperature: number;
  maxTokens: number;
  /** A JSON schema the reply must follow (a grammar constrains every sampled token). */
  schema?: Record<string, unknown>;
  /** Any JSON value (the JSON grammar) when no schema is given. */
  json?: boolean;
  /** Send `delta` messages as text is generated. */
  stream: boolean;
}

/** P(yes) of a yes/no question from the next-token distribution, without generating. */
export interface JudgeRequest {
  type: 'judge';
  id: number;
  model: ModelRef;
  system: string;
  prompt: string;
  /** Keep the evaluated prefix shared with the previous judgment (false: evaluate everything, for the bench). */
  reuse: boolean;
}

/** Embed texts with an embedding model. */
export interface EmbedRequest {
  type: 'embed';
  id: number;
  model: ModelRef;
  texts: string[];
}

/** Count the tokens of a text as the model's tokenizer cuts it. */
export interface CountRequest {
  type: 'count';
  id: number;
  model: ModelRef;
  text: string;
}

/** Which models are loaded now. */
export interface StatusRequest {
  type: 'status';
  id: number;
}

/** A request the host answers. */
export type HostRequest = CompleteRequest | JudgeRequest | EmbedRequest | CountRequest | StatusRequest;

/** What the engine sends. */
export type HostMessage = HostRequest | { type: 'settings'; settings: HostSettings } | { type: 'abort'; id: number };

/** A finished completion. */
export interface CompleteResult {
  text: string;
  promptTokens: number;
  completionTokens: number;
  doneReason: 'stop' | 'length';
}

/** A judgment read from the next-token distribution. */
export interface JudgeResult {
  /** P(yes) normalised over the yes and no token variants; undefined when neither has any mass. */
  pYes?: number;
  /** Probability mass of the yes variants and of the no variants before normalising. */
  yesMass: number;
  noMass: number;
  /** Tokens of the whole prompt, and how many of them were evaluated for this judgment (the rest were reused). */
  promptTokens: number;
  evaluatedTokens: number;
}

/** Vectors in input order. */
export interface EmbedResult {
  vectors: number[][];
  promptTokens: number;
}

/** The host's loaded models. */
export interface StatusResult {
  loaded: string[];
}

/** What the host sends. */
export type HostReply =
  | { type: 'ready' }
  | { type: 'delta'; id: number; text: string }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; code?: string; message: string };
