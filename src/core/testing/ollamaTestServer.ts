/**
 * A loopback HTTP server speaking Ollama's API and the OpenAI-compatible chat/embeddings API,
 * with replies and faults scripted per test. TEST SUPPORT ONLY: never imported by product code
 * and never a runtime default; unit tests and the e2e launcher start it on 127.0.0.1, port 0.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleOpenAi } from './testServerOpenAi';
import { handlePull, type PullState } from './testServerPull';
import { generate, type GenerationRequest } from './testServerModel';
import { delay, embedVector, estimateTokens, lastUserText, readJson, sendJson, waitForClose } from './testServerUtil';
import type { ScriptedReply, SeenRequest, TestModel, TestRegistryEntry, TestServerScript } from './testServerTypes';

export type * from './testServerTypes';
export { isJudgment } from './testServerUtil';

/** The running test server: its URL, the script, and its state. */
export class OllamaTestServer {
  readonly script: TestServerScript = {
    version: '0.9.0-test',
    chat: [],
    embedFaults: [],
    embedDimensions: 8,
    pull: { chunkBytes: 1 << 20, delayMs: 5 },
  };
  /** Installed models by name. */
  readonly installed = new Map<string, TestModel>();
  /** Models that can be pulled, by name. */
  readonly registry = new Map<string, TestRegistryEntry>();
  /** Models loaded in memory (after a chat, generate or embed). */
  readonly loaded = new Set<string>();
  /** Every request seen, oldest first. */
  readonly requests: SeenRequest[] = [];
  /**
   * Test-script bugs the server answered with HTTP 500 (e.g. a scripted JSON that breaks the
   * request's schema). The client retries a 5xx as transient, so such a bug would otherwise only
   * show as a slow run: a spec asserts this stays empty.
   */
  readonly bugs: string[] = [];
  /** Bytes of each layer that arrived so far (what a resumed pull continues from). */
  readonly partial = new Map<string, number>();
  url = '';
  private readonly server: Server;

  private constructor() {
    this.server = createServer((req, res) => {
      this.route(req, res).catch((error: unknown) => {
        this.bugs.push(String(error));
        if (!res.headersSent) sendJson(res, 500, { error: `test server bug: ${String(error)}` });
        else res.destroy();
      });
    });
  }

  /** Start on 127.0.0.1 with a free port. */
  static async start(): Promise<OllamaTestServer> {
    const s = new OllamaTestServer();
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    s.url = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`;
    return s;
  }

  /** Add an installed model (sizes and details as given, defaults otherwise). */
  install(name: string, details: Partial<TestModel> = {}): TestModel {
    const model: TestModel = { name, size: 500_000_000, family: 'qwen3', parameterSize: '600M', quantization: 'Q4_K_M', contextLength: 40960, ...details };
    this.installed.set(name, model);
    return model;
  }

  /** Offer a model for pulling, split into layers of the given sizes. */
  offer(name: string, layerSizes: number[], details: Partial<TestModel> = {}): void {
    const layers = layerSizes.map((size, i) => ({ digest: `sha256:${fakeDigest(`${name}/${i}`)}`, size }));
    const size = layerSizes.reduce((a, b) => a + b, 0);
    this.registry.set(name, { layers, model: { name, size, family: 'qwen3', parameterSize: '600M', quantization: 'Q4_K_M', contextLength: 40960, ...details } });
  }

  /** Stop listening and drop open connections. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readJson(req);
    const seen: SeenRequest = { method: req.method ?? 'GET', path, body };
    this.requests.push(seen);
    res.once('close', () => {
      if (!res.writableFinished) seen.aborted = true;
    });
    const b = (body ?? {}) as Record<string, unknown>;
    if (path.startsWith('/v1/')) return handleOpenAi({ server: this, path, body: b, res, nextReply: (prompt) => this.nextReply(prompt) });
    switch (`${req.method} ${path}`) {
      case 'GET /':
        return void res.end('Ollama is running');
      case 'GET /api/version':
        return sendJson(res, 200, { version: this.script.version });
      case 'GET /api/tags':
        return sendJson(res, 200, { models: [...this.installed.values()].map((m) => modelEntry(m)) });
      case 'GET /api/ps':
        return sendJson(res, 200, { models: [...this.loaded].flatMap((n) => (this.installed.get(n) ? [{ ...modelEntry(this.installed.get(n) as TestModel), size_vram: 0, expires_at: new Date(Date.now() + 300_000).toISOString() }] : [])) });
      case 'POST /api/show':
        return this.show(res, String(b.model ?? b.name ?? ''));
      case 'DELETE /api/delete':
        return this.remove(res, String(b.model ?? b.name ?? ''));
      case 'POST /api/pull':
        return handlePull(this as unknown as PullState, String(b.model ?? b.name ?? ''), res);
      case 'POST /api/chat':
      case 'POST /api/generate':
        return this.chat(path.endsWith('chat') ? 'chat' : 'generate', b, res);
      case 'POST /api/embed':
        return this.embed(b, res);
      default:
        return sendJson(res, 404, { error: `test server: no route ${req.method} ${path}` });
    }
  }

  /** The reply to a prompt: `script.respond`'s answer when it has one, else the next scripted reply, else the default echo. */
  nextReply(prompt = ''): ScriptedReply {
    return this.script.respond?.(prompt) ?? this.script.chat.shift() ?? {};
  }

  private show(res: ServerResponse, name: string): void {
    const m = this.installed.get(name);
    if (!m) return sendJson(res, 404, { error: `model '${name}' not found` });
    sendJson(res, 200, {
      modelfile: `FROM ${name}`,
      parameters: 'temperature 0.6',
      template: '{{ .Prompt }}',
      details: details(m),
      model_info: { 'general.architecture': m.family, [`${m.family}.context_length`]: m.contextLength, 'general.parameter_count': 600_000_000 },
      capabilities: ['completion'],
      modified_at: new Date().toISOString(),
    });
  }

  private remove(res: ServerResponse, name: string): void {
    if (!this.installed.delete(name)) return sendJson(res, 404, { error: `model '${name}' not found` });
    this.loaded.delete(name);
    res.writeHead(200).end();
  }

  private async chat(kind: 'chat' | 'generate', b: Record<string, unknown>, res: ServerResponse): Promise<void> {
    const model = String(b.model ?? '');
    const prompt = kind === 'chat' ? lastUserText(b.messages) : String(b.prompt ?? '');
    const reply = this.nextReply(prompt);
    if (reply.delayMs) await delay(reply.delayMs);
    if (reply.holdUntil) await Promise.race([reply.holdUntil, waitForClose(res)]);
    if (reply.fault === 'unknownModel' || !this.installed.has(model)) {
      return sendJson(res, 404, { error: `model "${model}" not found, try pulling it first` });
    }
    if (reply.fault === 'http500') return sendJson(res, 500, { error: 'scripted internal server error' });
    if (reply.fault === 'http429') return sendJson(res, 429, { error: 'server busy, please try again' });
    this.loaded.add(model);
    const gen = generate(reply, ollamaRequest(b, prompt));
    const counts = { prompt_eval_count: gen.promptTokens, eval_count: gen.completionTokens };
    const piece = (content: string, thinking = '') =>
      kind === 'chat' ? { message: { role: 'assistant', content, ...(thinking ? { thinking } : {}) } } : { response: content, ...(thinking ? { thinking } : {}) };
    const head = { model, created_at: new Date().toISOString() };
    const final = { ...head, ...piece(''), done: true, done_reason: gen.doneReason, total_duration: 1_000_000, ...counts };
    if (b.stream === false) {
      if (reply.fault === 'reset' || reply.fault === 'stall') return reply.fault === 'reset' ? void res.destroy() : waitForClose(res);
      if (reply.fault === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"model": "oops');
      return sendJson(res, 200, { ...final, ...piece(gen.tokens.join(''), gen.thinking), ...(gen.logprobs ? { logprobs: gen.logprobs } : {}) });
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    if (gen.thinking) res.write(`${JSON.stringify({ ...head, ...piece('', gen.thinking), done: false })}\n`);
    const chunks = gen.tokens.length ? gen.tokens : [''];
    for (const [i, chunk] of chunks.entries()) {
      if (res.destroyed) return;
      const logprobs = gen.logprobs?.[i] ? { logprobs: [gen.logprobs[i]] } : {};
      res.write(`${JSON.stringify({ ...head, ...piece(chunk), ...logprobs, done: false })}\n`);
      if (i === 0 && reply.fault === 'reset') return void (await delay(30), res.destroy());
      if (i === 0 && reply.fault === 'stall') return waitForClose(res);
      if (i === 0 && reply.fault === 'malformed') res.write('{"message": {"content": "broken\n');
      if (i === 0 && reply.holdAfterFirst) await Promise.race([reply.holdAfterFirst, waitForClose(res)]);
      if (reply.chunkDelayMs) await delay(reply.chunkDelayMs);
    }
    res.end(`${JSON.stringify(final)}\n`);
  }

  private embed(b: Record<string, unknown>, res: ServerResponse): void {
    const model = String(b.model ?? '');
    const fault = this.script.embedFaults.shift();
    if (fault === 'unknownModel' || !this.installed.has(model)) return sendJson(res, 404, { error: `model "${model}" not found, try pulling it first` });
    if (fault === 'http500') return sendJson(res, 500, { error: 'scripted internal server error' });
    if (fault === 'reset') return void res.destroy();
    this.loaded.add(model);
    const input = Array.isArray(b.input) ? b.input.map(String) : [String(b.input ?? '')];
    sendJson(res, 200, { model, embeddings: input.map((t) => embedVector(t, this.script.embedDimensions)), prompt_eval_count: input.reduce((n, t) => n + estimateTokens(t), 0) });
  }
}

function details(m: TestModel) {
  return { parent_model: '', format: 'gguf', family: m.family, families: [m.family], parameter_size: m.parameterSize, quantization_level: m.quantization };
}

function modelEntry(m: TestModel) {
  return { name: m.name, model: m.name, size: m.size, digest: fakeDigest(m.name), details: details(m), modified_at: new Date().toISOString() };
}

function fakeDigest(seed: string): string {
  let h = 2166136261;
  let out = '';
  for (let round = 0; out.length < 64; round++) {
    for (const ch of `${seed}#${round}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out.slice(0, 64);
}

/** What an Ollama chat/generate request asks of the model (`think`, `format`, `num_predict`, `logprobs`). */
function ollamaRequest(b: Record<string, unknown>, prompt: string): GenerationRequest {
  const options = (b.options ?? {}) as { num_predict?: unknown };
  const format = b.format === 'json' ? 'json' : typeof b.format === 'object' && b.format !== null ? (b.format as Record<string, unknown>) : undefined;
  return {
    prompt,
    // Ollama: `think: false` disables thinking, `think: true` (or a level) returns it apart; unset leaves it in the content.
    think: b.think === false ? 'off' : b.think === undefined ? 'inline' : 'separate',
    format,
    maxTokens: typeof options.num_predict === 'number' ? options.num_predict : undefined,
    topLogprobs: b.logprobs === true ? (typeof b.top_logprobs === 'number' ? b.top_logprobs : 0) : undefined,
  };
}

/** Start a test server (shorthand for `OllamaTestServer.start()`). */
export function startOllamaTestServer(): Promise<OllamaTestServer> {
  return OllamaTestServer.start();
}
