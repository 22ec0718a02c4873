import { AppError } from '../../../../shared/contract';
import type { ResolvedModel } from '../router';
import type { LlmProvider, ProviderCall } from '../types';
import type { CompleteResult, EmbedResult, JudgeResult, ModelRef } from './hostProtocol';
import type { LlamaRuntime } from './runtime';

/** Where a built-in model's GGUF file is, by the name the config assigns (a MODEL_NOT_FOUND AppError when none). */
export type ModelPathResolver = (model: string) => string;

/** A yes/no question for the in-process judgment (see llamaJudge.ts). */
export interface NextTokenJudgeCall {
  model: ResolvedModel;
  system: string;
  prompt: string;
  signal: AbortSignal;
  /** false: evaluate the whole prompt again (the bench's baseline). */
  reuse?: boolean;
}

/** The built-in provider: the provider contract plus what only an in-process model can do. */
export interface BuiltinProvider extends LlmProvider {
  /** P(yes) from the next-token distribution (no generation); the shared prompt prefix is evaluated once. */
  judge(call: NextTokenJudgeCall): Promise<JudgeResult>;
  /** Tokens of `text` as the model's tokenizer cuts it. */
  countTokens(model: ResolvedModel, text: string, signal: AbortSignal): Promise<number>;
}

/**
 * The `builtin` provider: llama.cpp through node-llama-cpp in the runtime's host process. Chat
 * streams; structured output is a grammar built from the JSON schema (every sampled token keeps
 * the reply valid JSON of it); token counts are the model's own tokenizer's.
 */
export function createBuiltinProvider(runtime: LlamaRuntime, resolvePath: ModelPathResolver): BuiltinProvider {
  const ref = (model: ResolvedModel): ModelRef => ({ path: resolvePath(model.model), contextSize: model.contextWindow });
  const what = (model: ResolvedModel) => `'${model.model}'`;
  return {
    async complete(call: ProviderCall) {
      const request = { type: 'complete' as const, model: ref(call.model), ...(call.system ? { system: call.system } : {}), prompt: call.prompt, temperature: call.temperature, maxTokens: call.maxTokens, ...(call.format ? { schema: call.format } : {}), ...(call.json ? { json: true } : {}), stream: Boolean(call.onDelta) };
      const result = await runtime.request<CompleteResult>(request, what(call.model), call.signal, call.onDelta);
      return { ...result, model: call.model.model };
    },
    async embed(model: ResolvedModel, texts: string[], signal: AbortSignal) {
      const result = await runtime.request<EmbedResult>({ type: 'embed', model: ref(model), texts }, what(model), signal);
      return { ...result, model: model.model };
    },
    judge(call: NextTokenJudgeCall) {
      return runtime.request<JudgeResult>({ type: 'judge', model: ref(call.model), system: call.system, prompt: call.prompt, reuse: call.reuse ?? true }, what(call.model), call.signal);
    },
    countTokens(model: ResolvedModel, text: string, signal: AbortSignal) {
      return runtime.request<number>({ type: 'count', model: ref(model), text }, what(model), signal);
    },
  };
}

/** The resolver when no model store is configured: every name is unknown, with the fix. */
export function noBuiltinModels(model: string): string {
  throw new AppError('MODEL_NOT_FOUND', `Model '${model}' is not among the built-in runtime's models. Download it on the Models page, or add a GGUF file you already have with \`cra models add <path>\`.`);
}
