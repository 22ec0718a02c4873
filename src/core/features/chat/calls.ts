import type { ChatTraceCall } from '../../../shared/contract/chat';
import type { CompletionStream } from '../../platform/llm/client';
import type { CallOptions, Completion } from '../../platform/llm/types';
import { CallBudgetExceeded } from './limits';
import { stripThinking } from './router';

/** The model calls a turn may make: the LlmClient's `complete` and `stream`. */
export interface TurnModel {
  complete(prompt: string, options: CallOptions): Promise<Completion>;
  stream(prompt: string, options: CallOptions): CompletionStream;
}

/** Longest prompt kept in a trace; the model-call log (`callId`) keeps the whole. */
export const TRACE_PROMPT_CHARS = 20_000;

function clip(text: string): string {
  return text.length <= TRACE_PROMPT_CHARS ? text : `${text.slice(0, TRACE_PROMPT_CHARS)}\n… (${text.length - TRACE_PROMPT_CHARS} more characters in the model-call log)`;
}

/**
 * Every model call of one turn goes through here, so the trace lists each with its purpose, its
 * prompt, its reply and its row in the model-call log. A failed call is recorded, then rethrown.
 * A call past `maxCalls` is not made: it throws {@link CallBudgetExceeded} (and `exhausted` says so).
 */
export class TurnCalls {
  readonly calls: ChatTraceCall[] = [];
  /** The retrieval round later calls belong to. */
  round = 0;
  /** Set when a call was refused for the budget. */
  exhausted = false;

  constructor(
    private readonly model: TurnModel,
    private readonly maxCalls = Number.POSITIVE_INFINITY,
  ) {}

  /** One completion; the reply as it came (see {@link TurnCalls.text} for it without thinking). */
  async complete(purpose: ChatTraceCall['purpose'], prompt: string, options: CallOptions & { stage: string }): Promise<string> {
    const entry = this.open(purpose, prompt, options);
    try {
      const done = await this.model.complete(prompt, options);
      this.close(entry, done);
      return done.text;
    } catch (error) {
      entry.error = error instanceof Error ? error.message : String(error);
      throw error;
    }
  }

  /** One completion's reply without thinking blocks, trimmed. */
  async text(purpose: ChatTraceCall['purpose'], prompt: string, options: CallOptions & { stage: string }): Promise<string> {
    return stripThinking(await this.complete(purpose, prompt, options)).text.trim();
  }

  /** A streamed completion: the deltas as they come; the call is recorded when it ends. */
  async *stream(purpose: ChatTraceCall['purpose'], prompt: string, options: CallOptions & { stage: string }): AsyncGenerator<string> {
    const entry = this.open(purpose, prompt, options);
    const stream = this.model.stream(prompt, options);
    let text = '';
    try {
      for await (const delta of stream) {
        text += delta;
        yield delta;
      }
      this.close(entry, await stream.final);
    } catch (error) {
      entry.reply = clip(text);
      entry.error = error instanceof Error ? error.message : String(error);
      // The call ended in the log too (failed or cancelled): take its row id when it has one.
      const final = await stream.final.catch(() => undefined);
      if (final?.callId !== undefined) entry.callId = final.callId;
      throw error;
    }
  }

  private open(purpose: ChatTraceCall['purpose'], prompt: string, options: CallOptions & { stage: string }): ChatTraceCall {
    if (this.calls.length >= this.maxCalls) {
      this.exhausted = true;
      throw new CallBudgetExceeded(this.maxCalls);
    }
    const entry: ChatTraceCall = { purpose, stage: options.stage, prompt: clip(prompt), round: this.round, ...(options.system ? { system: options.system } : {}) };
    this.calls.push(entry);
    return entry;
  }

  private close(entry: ChatTraceCall, done: Completion): void {
    Object.assign(entry, {
      reply: clip(done.text),
      model: done.model,
      promptTokens: done.promptTokens,
      completionTokens: done.completionTokens,
      latencyMs: done.latencyMs,
      ...(done.callId !== undefined ? { callId: done.callId } : {}),
    });
  }
}
