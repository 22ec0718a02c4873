/**
 * The loaded models of the built-in runtime, inside its host process: node-llama-cpp is imported
 * here, lazily (it is ESM-only and heavy), each model is loaded on first use with one context of
 * two sequences (chat and judgments) and unloaded after `idleMs` without a request. Work on one
 * sequence runs one request at a time.
 */
import type { ChatHistoryItem, ChatWrapper, Llama, LlamaContext, LlamaContextSequence, LlamaEmbeddingContext, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import type * as NodeLlamaCppModule from 'node-llama-cpp';
import type { HostSettings, ModelRef } from './hostProtocol';
import { withoutLargeBounds } from './grammarSchema';

/** One loaded model and what runs on it. */
export interface LoadedModel {
  path: string;
  model: LlamaModel;
  context: LlamaContext;
  chat: LlamaContextSequence;
  judge: LlamaContextSequence;
  wrapper: ChatWrapper;
  /** Created on the first embedding request. */
  embedding?: Promise<LlamaEmbeddingContext>;
  /** Serialises the requests of each sequence. */
  queues: { chat: Promise<unknown>; judge: Promise<unknown>; embed: Promise<unknown> };
}

type NodeLlamaCpp = typeof NodeLlamaCppModule;

/** The models of one host; everything node-llama-cpp is loaded on first use. */
export class LlamaModels {
  private lib: Promise<NodeLlamaCpp> | undefined;
  private llama: Promise<Llama> | undefined;
  private readonly models = new Map<string, Promise<LoadedModel>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly busy = new Map<string, number>();
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();

  constructor(private readonly settings: HostSettings) {}

  /** The node-llama-cpp module (a dynamic import: it is ESM-only, `require` fails). */
  module(): Promise<NodeLlamaCpp> {
    return (this.lib ??= import('node-llama-cpp'));
  }

  private runtime(): Promise<Llama> {
    return (this.llama ??= this.module().then((m) => m.getLlama({ gpu: this.settings.gpu, build: 'never', logLevel: m.LlamaLogLevel.error })));
  }

  /** Paths of the models loaded now. */
  loaded(): string[] {
    return [...this.models.keys()];
  }

  /**
   * Run `fn` on the model (loading it first), on the named sequence's queue; the idle timer starts
   * again when the last request on the model ends.
   */
  async use<T>(ref: ModelRef, queue: keyof LoadedModel['queues'], fn: (m: LoadedModel) => Promise<T>): Promise<T> {
    clearTimeout(this.timers.get(ref.path));
    this.busy.set(ref.path, (this.busy.get(ref.path) ?? 0) + 1);
    try {
      const loaded = await this.load(ref);
      const run = loaded.queues[queue].then(() => fn(loaded));
      loaded.queues[queue] = run.catch(() => undefined);
      return await run;
    } finally {
      const left = (this.busy.get(ref.path) ?? 1) - 1;
      this.busy.set(ref.path, left);
      if (left === 0) this.timers.set(ref.path, setTimeout(() => void this.unload(ref.path), this.settings.idleMs).unref());
    }
  }

  /** A grammar that makes every reply valid JSON of `schema` (or any JSON; large bounds left to validation when llama.cpp refuses them), cached per schema. */
  grammar(schema: Record<string, unknown> | undefined): Promise<LlamaGrammar> {
    const key = schema ? JSON.stringify(schema) : 'json';
    let grammar = this.grammars.get(key);
    if (!grammar) {
      grammar = this.runtime().then(async (llama) => {
        if (!schema) return llama.getGrammarFor('json');
        try {
          return await llama.createGrammarForJsonSchema(schema as never);
        } catch {
          // Refused as too large (nested repetitions): the same shape without the large upper bounds (grammarSchema.ts).
          return llama.createGrammarForJsonSchema(withoutLargeBounds(schema) as never);
        }
      });
      grammar.catch(() => this.grammars.delete(key));
      this.grammars.set(key, grammar);
    }
    return grammar;
  }

  /** The prompt tokens of a system + user turn as the model's chat template renders them, up to the answer. */
  renderChat(m: LoadedModel, system: string | undefined, prompt: string, answerPrefix = ''): number[] {
    const history: ChatHistoryItem[] = [...(system ? [{ type: 'system' as const, text: system }] : []), { type: 'user', text: prompt }, { type: 'model', response: answerPrefix ? [answerPrefix] : [] }];
    return m.wrapper.generateContextState({ chatHistory: history }).contextText.tokenize(m.model.tokenizer) as number[];
  }

  private load(ref: ModelRef): Promise<LoadedModel> {
    let loading = this.models.get(ref.path);
    if (!loading) {
      loading = (async () => {
        const [lib, llama] = await Promise.all([this.module(), this.runtime()]);
        const model = await llama.loadModel({ modelPath: ref.path });
        try {
          const contextSize = Math.max(256, Math.min(ref.contextSize, model.trainContextSize));
          const context = await model.createContext({ contextSize, sequences: 2, ...(this.settings.threads ? { threads: this.settings.threads } : {}) });
          const wrapper = lib.resolveChatWrapper(model);
          return { path: ref.path, model, context, chat: context.getSequence(), judge: context.getSequence(), wrapper, queues: { chat: Promise.resolve(), judge: Promise.resolve(), embed: Promise.resolve() } };
        } catch (error) {
          await model.dispose();
          throw error;
        }
      })();
      loading.catch(() => this.models.delete(ref.path));
      this.models.set(ref.path, loading);
    }
    return loading;
  }

  /** Free a model's memory (its contexts first). */
  async unload(path: string): Promise<void> {
    const loading = this.models.get(path);
    this.models.delete(path);
    this.timers.delete(path);
    const m = await loading?.catch(() => undefined);
    if (!m) return;
    await (await m.embedding?.catch(() => undefined))?.dispose();
    await m.context.dispose();
    await m.model.dispose();
  }
}
