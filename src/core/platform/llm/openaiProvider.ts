import { HttpStatusError, ProtocolError } from './errors';
import type { ResolvedModel } from './router';
import type { LlmProvider, ProviderCall, TokenLogprob } from './types';

/** `<base>/v1/<path>`, accepting a base_url with or without the /v1 suffix. */
function endpoint(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return `${base.endsWith('/v1') ? base : `${base}/v1`}/${path}`;
}

async function postJson(url: string, body: unknown, signal: AbortSignal): Promise<Response> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body), signal });
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let message = text || res.statusText;
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string } | string };
      message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? message);
    } catch {
      // not JSON: keep the text
    }
    throw new HttpStatusError(res.status, message);
  }
  return res;
}

async function readJson<T>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProtocolError(`malformed JSON body: ${text.slice(0, 80)}`);
  }
}

interface OpenAiLogprobs {
  content?: Array<{ token: string; logprob: number; top_logprobs?: Array<{ token: string; logprob: number }> }> | null;
}

interface ChatChunk {
  choices?: Array<{
    delta?: { content?: string | null; reasoning_content?: string | null };
    message?: { content?: string | null; reasoning_content?: string | null };
    finish_reason?: string | null;
    logprobs?: OpenAiLogprobs | null;
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/** Read an SSE body: each `data:` payload is a JSON chunk until `[DONE]`. */
async function* sseChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatChunk> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') return;
      try {
        yield JSON.parse(data) as ChatChunk;
      } catch {
        throw new ProtocolError(`malformed event: ${data.slice(0, 80)}`);
      }
    }
  }
  throw new Error('Did not receive done: the stream ended before [DONE]');
}

const estimate = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** OpenAI-compatible servers (llama-server, vLLM, LM Studio): /v1/chat/completions (SSE) and /v1/embeddings. */
export const openaiProvider: LlmProvider = {
  async complete(call: ProviderCall) {
    const messages = [...(call.system ? [{ role: 'system', content: call.system }] : []), { role: 'user', content: call.prompt }];
    const body = {
      model: call.model.model,
      messages,
      temperature: call.temperature,
      max_tokens: call.maxTokens,
      stream: Boolean(call.onDelta),
      ...(call.onDelta ? { stream_options: { include_usage: true } } : {}),
      ...(call.format ? { response_format: { type: 'json_schema', json_schema: { name: 'reply', strict: true, schema: call.format } } } : call.json ? { response_format: { type: 'json_object' } } : {}),
      // llama-server and vLLM pass these to the chat template; Qwen3's honours enable_thinking.
      ...(call.think === false ? { chat_template_kwargs: { enable_thinking: false } } : {}),
      ...(call.logprobs !== undefined ? { logprobs: true, top_logprobs: call.logprobs } : {}),
    };
    const tokens: TokenLogprob[] = [];
    const collect = (lp: OpenAiLogprobs | null | undefined) => {
      for (const t of lp?.content ?? []) tokens.push({ token: t.token, logprob: t.logprob, top: (t.top_logprobs ?? []).map((a) => ({ token: a.token, logprob: a.logprob })) });
    };
    const extras = (finish: string | null | undefined, thinking: string) => ({
      ...(finish ? { doneReason: finish } : {}),
      ...(thinking ? { thinking } : {}),
      ...(call.logprobs !== undefined && tokens.length ? { logprobs: tokens } : {}),
    });
    const res = await postJson(endpoint(call.model.baseUrl, 'chat/completions'), body, call.signal);
    if (!call.onDelta) {
      const json = await readJson<ChatChunk>(res);
      const choice = json.choices?.[0];
      const text = choice?.message?.content ?? '';
      collect(choice?.logprobs);
      return { text, promptTokens: json.usage?.prompt_tokens ?? estimate(call.prompt), completionTokens: json.usage?.completion_tokens ?? estimate(text), model: call.model.model, ...extras(choice?.finish_reason, choice?.message?.reasoning_content ?? '') };
    }
    if (!res.body) throw new ProtocolError('the response has no body');
    let text = '';
    let usage: ChatChunk['usage'];
    let finish: string | null | undefined;
    let thinking = '';
    for await (const chunk of sseChunks(res.body)) {
      const choice = chunk.choices?.[0];
      collect(choice?.logprobs);
      finish = choice?.finish_reason ?? finish;
      thinking += choice?.delta?.reasoning_content ?? '';
      const delta = choice?.delta?.content ?? '';
      if (delta) {
        text += delta;
        call.onDelta(delta);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    // Servers that ignore stream_options.include_usage send no usage; fall back to the chars/4 estimate.
    return { text, promptTokens: usage?.prompt_tokens ?? estimate(call.prompt), completionTokens: usage?.completion_tokens ?? estimate(text), model: call.model.model, ...extras(finish, thinking) };
  },

  async embed(model: ResolvedModel, texts: string[], signal: AbortSignal) {
    const res = await postJson(endpoint(model.baseUrl, 'embeddings'), { model: model.model, input: texts }, signal);
    const json = await readJson<{ data?: Array<{ embedding: number[]; index: number }>; usage?: { prompt_tokens?: number } }>(res);
    const data = [...(json.data ?? [])].sort((a, b) => a.index - b.index);
    if (data.length !== texts.length) throw new ProtocolError(`expected ${texts.length} embeddings, got ${data.length}`);
    return { vectors: data.map((d) => d.embedding), promptTokens: json.usage?.prompt_tokens ?? texts.reduce((n, t) => n + estimate(t), 0), model: model.model };
  },
};
