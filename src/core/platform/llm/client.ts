import { AppError } from '../../../shared/contract';
import { defaultRoleOf, type Provider, type Role, type Stage, STAGES } from '../config/schema';
import { activeRun } from '../runtime/runs';
import { classifyError } from './errors';
import { createBuiltinProvider, noBuiltinModels, type BuiltinProvider } from './builtin/builtinProvider';
import type { JudgeResult } from './builtin/hostProtocol';
import { LlamaRuntime } from './builtin/runtime';
import { ollamaProvider } from './ollamaProvider';
import { openaiProvider } from './openaiProvider';
import type { ModelRouter, ResolvedModel } from './router';
import type { CallLogger, CallOptions, Completion, Embeddings, LlmProvider, ModelCallRecord } from './types';

/** Retries of transient failures (connection refused/reset, 429, 5xx): attempts and exponential backoff. */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** What the client is built from. */
export interface LlmClientDeps {
  /** Routing from the loaded config (a function: the config may change between calls). */
  router: () => ModelRouter;
  /** Default audit log (the user-level raw DB); a call's `log` option wins. */
  log?: CallLogger;
  retry?: Partial<RetryPolicy>;
  providers?: Partial<Record<Provider, LlmProvider>>;
}

/** A streamed completion: iterate the text deltas; `final` resolves with the whole completion. */
export interface CompletionStream extends AsyncIterable<string> {
  final: Promise<Completion>;
}

/** Token positions of log-probabilities kept in the audit log (a yes/no answer needs the first few). */
const LOGGED_LOGPROBS = 16;

const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxDelayMs: 4000 };

/**
 * The one way model calls are made. Resolves the model through the router, calls the provider
 * with a per-call timeout and the caller's AbortSignal, retries transient failures with
 * exponential backoff (never after text was streamed), and appends every call — success or
 * failure — to the audit log once it ends.
 */
export class LlmClient {
  private readonly retry: RetryPolicy;
  private readonly providers: Record<Provider, LlmProvider>;

  constructor(private readonly deps: LlmClientDeps) {
    this.retry = { ...DEFAULT_RETRY, ...deps.retry };
    // The default built-in provider knows no models (services.ts gives it the data folder's store); it starts nothing until called.
    this.providers = { ollama: ollamaProvider, openai_compat: openaiProvider, builtin: createBuiltinProvider(new LlamaRuntime(), noBuiltinModels), ...deps.providers };
  }

  /** Resolve the model a call with these options would use. */
  resolve(options: Pick<CallOptions, 'role' | 'stage' | 'model'>): ResolvedModel {
    return options.model ?? this.deps.router().resolve(roleOf(options), options.stage);
  }

  /** One completion. */
  complete(prompt: string, options: CallOptions = {}): Promise<Completion> {
    return this.run(prompt, options);
  }

  /** A streamed completion (deltas as they arrive, then the final usage). */
  stream(prompt: string, options: CallOptions = {}): CompletionStream {
    const queue: string[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    let failure: unknown;
    const notify = () => {
      wake?.();
      wake = undefined;
    };
    const final = this.run(prompt, options, (delta) => {
      queue.push(delta);
      notify();
    }).then(
      (result) => {
        finished = true;
        notify();
        return result;
      },
      (error: unknown) => {
        failure = error;
        finished = true;
        notify();
        throw error;
      },
    );
    final.catch(() => undefined);
    return {
      final,
      async *[Symbol.asyncIterator]() {
        for (;;) {
          // Once the caller cancels, nothing more is yielded — not even deltas that arrived before
          // the provider saw the cancel (under load a few are queued by then); the stream ends
          // with the run's CANCELLED.
          const cancelled = options.signal?.aborted === true;
          if (queue.length && !cancelled) yield queue.shift() as string;
          else if (finished) {
            if (failure) throw failure;
            if (cancelled) throw new AppError('CANCELLED', 'The model call was cancelled.');
            return;
          } else await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    };
  }

  /** Whether the model of these options can answer a yes/no question from its next-token distribution (the built-in runtime can). */
  judgesInProcess(options: Pick<CallOptions, 'role' | 'stage' | 'model'>): boolean {
    return typeof (this.providers[this.resolve(options).provider] as Partial<BuiltinProvider>).judge === 'function';
  }

  /**
   * A yes/no question answered from the next-token distribution, without generating (see
   * builtin/llamaJudge.ts): P(yes) over the yes/no token variants. The prompt prefix shared with
   * the previous judgment is not evaluated again unless `reuse` is false. Logged like any call.
   */
  async judgeNextToken(prompt: string, options: CallOptions & { system: string; reuse?: boolean }): Promise<JudgeResult & { model: string; latencyMs: number; callId?: number }> {
    const model = this.resolve(options);
    const provider = this.providers[model.provider] as Partial<BuiltinProvider>;
    if (!provider.judge) throw new AppError('UNSUPPORTED', `The ${model.provider} provider cannot read answers from the next-token distribution; use a generated judgment.`);
    const judge = provider.judge;
    const outcome = await this.attempt(model, options, (signal) => judge({ model, system: options.system, prompt, signal, reuse: options.reuse ?? true }));
    const value = outcome.ok ? outcome.value : undefined;
    const response = value ? (value.pYes === undefined ? 'no yes/no token had any probability' : `P(yes)=${value.pYes.toFixed(4)}`) : undefined;
    const params = { next_token: true, reuse: options.reuse ?? true, attempts: outcome.attempts, ...(value ? { evaluated_tokens: value.evaluatedTokens, yes_mass: value.yesMass, no_mass: value.noMass } : {}) };
    const callId = this.record(options, model, { prompt, params, latencyMs: outcome.latencyMs, ...(value ? { response, promptTokens: value.promptTokens, completionTokens: 0 } : {}), ...errorFields(outcome) });
    if (!outcome.ok) throw outcome.error;
    return { ...outcome.value, model: model.model, latencyMs: outcome.latencyMs, ...(callId !== undefined ? { callId } : {}) };
  }

  /** Embed texts with the embedding model (or the stage's override). */
  async embed(texts: string[], options: CallOptions = {}): Promise<Embeddings> {
    options = { ...options, stage: options.stage ?? 'embedding' };
    const model = this.resolve({ role: 'embedding', ...options });
    const chars = texts.reduce((n, t) => n + t.length, 0);
    // Embedding batches can be large: the log records their shape and the first text, not every text.
    const prompt = `[${texts.length} texts, ${chars} chars] ${texts[0]?.slice(0, 200) ?? ''}`;
    const outcome = await this.attempt(model, options, (signal) => this.providers[model.provider].embed(model, texts, signal));
    const vectors = outcome.ok ? outcome.value.vectors : undefined;
    this.record(options, model, { prompt, params: { inputs: texts.length, attempts: outcome.attempts }, latencyMs: outcome.latencyMs, ...(vectors ? { response: `${vectors.length} vectors × ${vectors[0]?.length ?? 0}`, promptTokens: outcome.ok ? outcome.value.promptTokens : undefined } : {}), ...errorFields(outcome) });
    if (!outcome.ok) throw outcome.error;
    return { ...outcome.value, latencyMs: outcome.latencyMs };
  }

  private async run(prompt: string, options: CallOptions, onDelta?: (delta: string) => void): Promise<Completion> {
    const model = this.resolve(options);
    const temperature = options.temperature ?? model.temperature;
    const maxTokens = options.maxTokens ?? model.maxTokens;
    let streamed = false;
    const deltas = onDelta
      ? (d: string) => {
          streamed = true;
          onDelta(d);
        }
      : undefined;
    const outcome = await this.attempt(
      model,
      options,
      (signal) => this.providers[model.provider].complete({ model, system: options.system, prompt, temperature, maxTokens, json: options.json, format: options.format, think: options.think, logprobs: options.logprobs, signal, onDelta: deltas }),
      () => streamed,
    );
    const params = {
      temperature,
      max_tokens: maxTokens,
      num_ctx: model.contextWindow,
      stream: Boolean(onDelta),
      attempts: outcome.attempts,
      ...(options.format ? { format: options.format } : options.json ? { format: 'json' } : {}),
      ...(options.think !== undefined ? { think: options.think } : {}),
      ...(options.logprobs !== undefined ? { top_logprobs: options.logprobs } : {}),
      // What came back beside the text, so the log shows a cut-off reply and the token probabilities.
      ...(outcome.ok && outcome.value.doneReason ? { done_reason: outcome.value.doneReason } : {}),
      ...(outcome.ok && outcome.value.logprobs ? { logprobs: outcome.value.logprobs.slice(0, LOGGED_LOGPROBS) } : {}),
    };
    // Separate reasoning is logged in front of the answer, as the model produced it.
    const response = outcome.ok ? (outcome.value.thinking ? `<think>${outcome.value.thinking}</think>${outcome.value.text}` : outcome.value.text) : undefined;
    const success = outcome.ok ? { response, promptTokens: outcome.value.promptTokens, completionTokens: outcome.value.completionTokens } : {};
    const callId = this.record(options, model, { prompt, params, latencyMs: outcome.latencyMs, ...success, ...errorFields(outcome) });
    if (!outcome.ok) throw outcome.error;
    return { ...outcome.value, latencyMs: outcome.latencyMs, ...(callId !== undefined ? { callId } : {}) };
  }

  /** Call `fn` with timeout and abort, retrying transient failures; never throws. */
  private async attempt<T>(model: ResolvedModel, options: CallOptions, fn: (signal: AbortSignal) => Promise<T>, hasStreamed: () => boolean = () => false): Promise<Outcome<T>> {
    const started = performance.now();
    const timeoutMs = options.timeoutMs ?? model.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const guard = callGuard(options.signal, timeoutMs);
      try {
        const value = await fn(guard.signal);
        return { ok: true, value, attempts: attempt, latencyMs: Math.round(performance.now() - started) };
      } catch (raw) {
        const { error, transient } = classifyError(raw, { baseUrl: model.baseUrl, model: model.model, abortReason: guard.reason(), timeoutMs });
        const retry = transient && attempt < this.retry.attempts && !hasStreamed() && !options.signal?.aborted;
        if (!retry) return { ok: false, error, attempts: attempt, latencyMs: Math.round(performance.now() - started) };
        await sleep(backoff(this.retry, attempt), options.signal);
      } finally {
        guard.dispose();
      }
    }
  }

  private record(options: CallOptions, model: ResolvedModel, fields: Pick<ModelCallRecord, 'prompt' | 'params' | 'latencyMs' | 'response' | 'promptTokens' | 'completionTokens' | 'errorCode' | 'error'>): number | undefined {
    // A call made inside a run (RunRegistry) is logged with its run id, beside the run's row.
    const run = activeRun();
    const log = options.log ?? run?.log ?? this.deps.log;
    if (!log) return undefined;
    const record: ModelCallRecord = {
      runId: options.runId ?? run?.runId,
      stage: options.stage,
      role: model.role,
      provider: model.provider,
      baseUrl: model.baseUrl,
      model: model.model,
      system: options.system,
      createdAt: new Date().toISOString(),
      ...fields,
    };
    try {
      return log.append(record);
    } catch (error) {
      // The audit log must not turn a finished model call into a failure; say so loudly instead.
      console.error('[llm] could not append to the model call log', error);
      return undefined;
    }
  }
}

type Outcome<T> = { ok: true; value: T; attempts: number; latencyMs: number } | { ok: false; error: AppError; attempts: number; latencyMs: number };

function errorFields(outcome: Outcome<unknown>): { errorCode?: string; error?: string } {
  return outcome.ok ? {} : { errorCode: outcome.error.code, error: outcome.error.message };
}

function roleOf(options: Pick<CallOptions, 'role' | 'stage'>): Role {
  if (options.role) return options.role;
  const stage = options.stage?.replace(/_pass\d+$/, '');
  return stage && (STAGES as readonly string[]).includes(stage) ? defaultRoleOf(stage as Stage) : 'reasoning';
}

/** A per-attempt signal that fires on the caller's abort or the timeout, and remembers which. */
function callGuard(outer: AbortSignal | undefined, timeoutMs: number) {
  const controller = new AbortController();
  let reason: 'cancelled' | 'timeout' | undefined;
  const onAbort = () => {
    reason ??= 'cancelled';
    controller.abort();
  };
  if (outer?.aborted) onAbort();
  outer?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    reason ??= 'timeout';
    controller.abort();
  }, timeoutMs);
  return {
    signal: controller.signal,
    reason: () => reason,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

function backoff(policy: RetryPolicy, attempt: number): number {
  const base = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
