import { Ollama, type ChatResponse, type Logprob, type Message } from 'ollama';
import { ProtocolError } from './errors';
import type { ResolvedModel } from './router';
import type { LlmProvider, ProviderCall } from './types';

/**
 * An `ollama` client whose every request — streamed or not — carries `signal` (the library only
 * wires its own abort to streams) and whose NDJSON streams fail loudly on a malformed line
 * (the library would log and skip it, silently losing part of a reply).
 */
export function ollamaClient(baseUrl: string, signal?: AbortSignal): Ollama {
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const signals = [signal, init?.signal].filter((s): s is AbortSignal => Boolean(s));
    const res = await fetch(input, { ...init, signal: signals.length ? AbortSignal.any(signals) : undefined });
    if (!res.body || !res.headers.get('content-type')?.includes('ndjson')) return res;
    return new Response(res.body.pipeThrough(ndjsonValidator()), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return new Ollama({ host: baseUrl, fetch: guarded });
}

/** Pass bytes through unchanged, erroring the stream at the first line that is not JSON. */
function ndjsonValidator(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let pending = '';
  const check = (line: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    if (!line.trim()) return;
    try {
      JSON.parse(line);
    } catch {
      controller.error(new ProtocolError(`malformed JSON line: ${line.slice(0, 80)}`));
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) check(line, controller);
      controller.enqueue(chunk);
    },
    flush(controller) {
      check(pending + decoder.decode(), controller);
    },
  });
}

function messagesOf(call: ProviderCall): Message[] {
  return [...(call.system ? [{ role: 'system', content: call.system }] : []), { role: 'user', content: call.prompt }];
}

/** The Ollama protocol: /api/chat with num_ctx and num_predict always set, /api/embed. */
export const ollamaProvider: LlmProvider = {
  async complete(call) {
    const client = ollamaClient(call.model.baseUrl, call.signal);
    const request = {
      model: call.model.model,
      messages: messagesOf(call),
      // Always explicit: Ollama's default context (4k) silently truncates longer prompts.
      options: { num_ctx: call.model.contextWindow, num_predict: call.maxTokens, temperature: call.temperature },
      ...(call.format ? { format: call.format } : call.json ? { format: 'json' } : {}),
      ...(call.think !== undefined ? { think: call.think } : {}),
      ...(call.logprobs !== undefined ? { logprobs: true, top_logprobs: call.logprobs } : {}),
    };
    let final: ChatResponse | undefined;
    let text = '';
    let thinking = '';
    const logprobs: Logprob[] = [];
    if (call.onDelta) {
      const stream = await client.chat({ ...request, stream: true });
      for await (const part of stream) {
        const delta = part.message?.content ?? '';
        thinking += part.message?.thinking ?? '';
        if (part.logprobs) logprobs.push(...part.logprobs);
        if (delta) {
          text += delta;
          call.onDelta(delta);
        }
        if (part.done) final = part;
      }
    } else {
      final = await parseGuard(() => client.chat({ ...request, stream: false }));
      text = final.message?.content ?? '';
      thinking = final.message?.thinking ?? '';
      if (final.logprobs) logprobs.push(...final.logprobs);
    }
    if (!final) throw new ProtocolError('the stream ended without its final message');
    return {
      text,
      promptTokens: final.prompt_eval_count ?? 0,
      completionTokens: final.eval_count ?? 0,
      model: call.model.model,
      ...(final.done_reason ? { doneReason: final.done_reason } : {}),
      ...(thinking ? { thinking } : {}),
      ...(call.logprobs !== undefined && logprobs.length ? { logprobs: logprobs.map((l) => ({ token: l.token, logprob: l.logprob, top: (l.top_logprobs ?? []).map((t) => ({ token: t.token, logprob: t.logprob })) })) } : {}),
    };
  },

  async embed(model: ResolvedModel, texts: string[], signal: AbortSignal) {
    const client = ollamaClient(model.baseUrl, signal);
    const res = await parseGuard(() => client.embed({ model: model.model, input: texts, options: { num_ctx: model.contextWindow } }));
    if (!Array.isArray(res.embeddings) || res.embeddings.length !== texts.length) throw new ProtocolError(`expected ${texts.length} embeddings, got ${res.embeddings?.length ?? 0}`);
    const tokens = (res as { prompt_eval_count?: number }).prompt_eval_count ?? 0;
    return { vectors: res.embeddings, promptTokens: tokens, model: model.model };
  },
};

/** A JSON body that does not parse is a protocol error, not a bug. */
async function parseGuard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof SyntaxError) throw new ProtocolError(error.message);
    throw error;
  }
}
