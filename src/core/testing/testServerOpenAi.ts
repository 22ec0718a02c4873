/** The OpenAI-compatible endpoints of the loopback model test server (test support only). */
import type { ServerResponse } from 'node:http';
import { generate, type GenerationRequest } from './testServerModel';
import { delay, embedVector, estimateTokens, lastUserText, sendJson, waitForClose } from './testServerUtil';
import type { ScriptedReply, TestModel, TestServerScript } from './testServerTypes';

interface OpenAiRequest {
  server: { installed: Map<string, TestModel>; script: TestServerScript; loaded: Set<string> };
  path: string;
  body: Record<string, unknown>;
  res: ServerResponse;
  nextReply(prompt: string): ScriptedReply;
}

/** Answer /v1/chat/completions (JSON or SSE) and /v1/embeddings. */
export async function handleOpenAi(req: OpenAiRequest): Promise<void> {
  const { path, body, res, server } = req;
  const model = String(body.model ?? '');
  const notFound = () => sendJson(res, 404, { error: { message: `The model \`${model}\` does not exist.`, type: 'invalid_request_error', code: 'model_not_found' } });
  if (path === '/v1/models') return sendJson(res, 200, { object: 'list', data: [...server.installed.keys()].map((id) => ({ id, object: 'model' })) });
  if (path === '/v1/embeddings') {
    const fault = server.script.embedFaults.shift();
    if (fault === 'unknownModel' || !server.installed.has(model)) return notFound();
    if (fault === 'http500') return sendJson(res, 500, { error: { message: 'scripted internal server error' } });
    const input = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? '')];
    const data = input.map((t, index) => ({ object: 'embedding', index, embedding: embedVector(t, server.script.embedDimensions) }));
    const tokens = input.reduce((n, t) => n + estimateTokens(t), 0);
    return sendJson(res, 200, { object: 'list', model, data, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }
  if (path !== '/v1/chat/completions') return sendJson(res, 404, { error: { message: `no route ${path}` } });
  const reply = req.nextReply(lastUserText(body.messages));
  if (reply.delayMs) await delay(reply.delayMs);
  if (reply.fault === 'unknownModel' || !server.installed.has(model)) return notFound();
  if (reply.fault === 'http500') return sendJson(res, 500, { error: { message: 'scripted internal server error' } });
  if (reply.fault === 'http429') return sendJson(res, 429, { error: { message: 'rate limited' } });
  const prompt = lastUserText(body.messages);
  const gen = generate(reply, openAiRequest(body, prompt));
  const text = gen.tokens.join('');
  const finish = gen.doneReason;
  const usage = { prompt_tokens: gen.promptTokens, completion_tokens: gen.completionTokens };
  const head = { id: 'chatcmpl-test', created: Math.floor(Date.now() / 1000), model };
  const logprobsOf = (entries: NonNullable<typeof gen.logprobs>) => ({
    content: entries.map((e) => ({ token: e.token, logprob: e.logprob, bytes: [...Buffer.from(e.token)], top_logprobs: e.top_logprobs.map((t) => ({ ...t, bytes: [...Buffer.from(t.token)] })) })),
  });
  if (body.stream !== true) {
    if (reply.fault === 'reset') return void res.destroy();
    if (reply.fault === 'stall') return waitForClose(res);
    if (reply.fault === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [');
    const choice = { index: 0, message: { role: 'assistant', content: text }, finish_reason: finish, ...(gen.logprobs ? { logprobs: logprobsOf(gen.logprobs) } : {}) };
    return sendJson(res, 200, { ...head, object: 'chat.completion', choices: [choice], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
  const chunks = gen.tokens.length ? gen.tokens : [''];
  for (const [i, chunk] of chunks.entries()) {
    if (res.destroyed) return;
    const logprobs = gen.logprobs?.[i] ? { logprobs: logprobsOf([gen.logprobs[i]]) } : {};
    event({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: chunk }, finish_reason: null, ...logprobs }] });
    if (i === 0 && reply.fault === 'reset') return void (await delay(30), res.destroy());
    if (i === 0 && reply.fault === 'stall') return waitForClose(res);
    if (i === 0 && reply.fault === 'malformed') res.write('data: {"choices": [{"delta": \n\n');
    if (reply.chunkDelayMs) await delay(reply.chunkDelayMs);
  }
  event({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: finish }] });
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage) event({ ...head, object: 'chat.completion.chunk', choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
  res.end('data: [DONE]\n\n');
}

/**
 * What an OpenAI-compatible request asks of the model: `response_format` (json_schema or
 * json_object), `max_tokens`, `logprobs`/`top_logprobs`, and thinking switched off the way
 * llama-server and vLLM take it for Qwen3 (`chat_template_kwargs.enable_thinking: false`).
 */
function openAiRequest(body: Record<string, unknown>, prompt: string): GenerationRequest {
  const rf = body.response_format as { type?: string; json_schema?: { schema?: Record<string, unknown> } } | undefined;
  const format = rf?.type === 'json_schema' && rf.json_schema?.schema ? rf.json_schema.schema : rf?.type === 'json_object' ? 'json' : undefined;
  const kwargs = body.chat_template_kwargs as { enable_thinking?: unknown } | undefined;
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  return {
    prompt,
    think: kwargs?.enable_thinking === false ? 'off' : 'inline',
    format,
    maxTokens: typeof maxTokens === 'number' ? maxTokens : undefined,
    topLogprobs: body.logprobs === true ? (typeof body.top_logprobs === 'number' ? body.top_logprobs : 0) : undefined,
  };
}
