/**
 * The built-in model runtime's host process (started by runtime.ts with child_process.fork): it
 * owns llama.cpp, so a native crash or an out-of-memory kill ends this process, never the engine.
 * Requests and replies: hostProtocol.ts.
 */
import type { CompleteRequest, CompleteResult, CountRequest, EmbedRequest, EmbedResult, HostMessage, HostReply, HostRequest, HostSettings } from './hostProtocol';
import { judgeNextToken } from './llamaJudge';
import { LlamaModels } from './llamaModels';

const aborts = new Map<number, AbortController>();
let models: LlamaModels | undefined;

function send(reply: HostReply): void {
  process.send?.(reply);
}

async function complete(m: LlamaModels, request: CompleteRequest, signal: AbortSignal): Promise<CompleteResult> {
  const { LlamaChatSession } = await m.module();
  const grammar = request.schema || request.json ? await m.grammar(request.schema) : undefined;
  return m.use(request.model, 'chat', async (loaded) => {
    const promptTokens = m.renderChat(loaded, request.system, request.prompt).length;
    const before = loaded.chat.tokenMeter.usedOutputTokens;
    const session = new LlamaChatSession({ contextSequence: loaded.chat, chatWrapper: loaded.wrapper, autoDisposeSequence: false, ...(request.system ? { systemPrompt: request.system } : {}) });
    try {
      const reply = await session.promptWithMeta(request.prompt, {
        maxTokens: request.maxTokens,
        temperature: request.temperature,
        signal,
        ...(grammar ? { grammar } : {}),
        ...(request.stream ? { onTextChunk: (text: string) => send({ type: 'delta', id: request.id, text }) } : {}),
      });
      const completionTokens = loaded.chat.tokenMeter.usedOutputTokens - before;
      return { text: reply.responseText, promptTokens, completionTokens, doneReason: reply.stopReason === 'maxTokens' ? 'length' : 'stop' };
    } finally {
      session.dispose({ disposeSequence: false });
    }
  });
}

async function embed(m: LlamaModels, request: EmbedRequest): Promise<EmbedResult> {
  return m.use(request.model, 'embed', async (loaded) => {
    const context = await (loaded.embedding ??= loaded.model.createEmbeddingContext({ contextSize: loaded.context.contextSize }));
    const vectors: number[][] = [];
    let promptTokens = 0;
    for (const text of request.texts) {
      promptTokens += loaded.model.tokenize(text).length;
      vectors.push([...(await context.getEmbeddingFor(text)).vector]);
    }
    return { vectors, promptTokens };
  });
}

async function count(m: LlamaModels, request: CountRequest): Promise<number> {
  return m.use(request.model, 'embed', async (loaded) => loaded.model.tokenize(request.text).length);
}

async function handle(m: LlamaModels, request: HostRequest, signal: AbortSignal): Promise<unknown> {
  switch (request.type) {
    case 'complete':
      return complete(m, request, signal);
    case 'judge':
      return m.use(request.model, 'judge', (loaded) => judgeNextToken(m, loaded, request));
    case 'embed':
      return embed(m, request);
    case 'count':
      return count(m, request);
    case 'status':
      return { loaded: m.loaded() };
  }
}

function onMessage(message: HostMessage): void {
  if (message.type === 'settings') {
    models = new LlamaModels(message.settings as HostSettings);
    return;
  }
  if (message.type === 'abort') {
    aborts.get(message.id)?.abort();
    return;
  }
  const controller = new AbortController();
  aborts.set(message.id, controller);
  const current = models ?? (models = new LlamaModels({ gpu: false, idleMs: 5 * 60_000 }));
  handle(current, message, controller.signal).then(
    (value) => send({ type: 'result', id: message.id, value }),
    (error: unknown) => {
      const code = controller.signal.aborted ? 'CANCELLED' : (error as { code?: unknown }).code;
      send({ type: 'error', id: message.id, ...(typeof code === 'string' ? { code } : {}), message: error instanceof Error ? error.message : String(error) });
    },
  ).finally(() => aborts.delete(message.id));
}

if (process.send) {
  process.on('message', (message: HostMessage) => onMessage(message));
  // The engine went away: nothing is left to answer.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready' });
}
