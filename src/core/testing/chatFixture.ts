/**
 * Test support for chat: one engine over a temporary data folder with a repository added and
 * indexed, the loopback model server, and what a chat test builds over them (the knowledge base,
 * a conversation store, a client, an embedder, a turn's dependencies), set up once per file (or
 * describe block) and closed after it in reverse order.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { Core } from '../app/createCore';
import { openDatabase, type Db } from '../platform/db/open';
import { openRawDatabase } from '../platform/db/raw';
import { KnowledgeBase } from '../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../platform/llm/client';
import { EventBus } from '../platform/runtime/events';
import { embedRepository } from '../knowledge/search/embedRun';
import { createEmbedder, type Embedder } from '../knowledge/search/embedder';
import { sharedDefaultEmbedder } from '../knowledge/search/search';
import { loadPipelines, REPO_PIPELINE_DIR, type ChatPipeline } from '../features/chat/pipeline';
import { ConversationStore } from '../features/chat/store';
import type { TurnDeps } from '../features/chat/turn';
import { createChatRepo } from './chatRepo';
import type { TestRepo } from './gitRepo';
import { clientFromToml, LOOPBACK_CHAT_MODEL, LOOPBACK_EMBEDDING_MODEL, loopbackToml, resetScript } from './loopbackModels';
import { OllamaTestServer } from './ollamaTestServer';
import { createTempCore } from './tempCore';
import { repoPaths } from '../platform/layout';

/** What differs between the chat tests' set-ups. */
export interface ChatFixtureOptions {
  /** Build the repository (the fixture cleans it up); default the chat fixture repository (createChatRepo). */
  repo?: () => TestRepo;
  /** Pipeline files (file name → YAML) written to the repository's .cleanroom/pipelines before it is indexed. */
  pipelines?: Record<string, string>;
  /**
   * Install the loopback embedding model: `client` gets an embedding role and `embedder` returns
   * the server's vectors (id `loopback-nomic`). Without it `embedder` is the shared default embedder.
   */
  embedding?: boolean;
  /** Embed the chunks of the index with `embedder` before the tests run. */
  embedChunks?: boolean;
  /**
   * Give the engine itself the loopback server (for `chat/ask` and other handlers): config.toml
   * names it for reasoning and coding, followed by this text ('' for nothing more).
   */
  engineConfig?: string;
}

/** The chat embedder over the loopback server's embedding model. */
const LOOPBACK_EMBEDDER = { id: 'loopback-nomic', dimensions: 8 };

/**
 * The shared chat set-up. `core` and `dataDir` exist at once; everything else is set in beforeAll
 * (the server, the repository and its id) or opened on first use after it (the knowledge base,
 * the conversation store, the call log, the client, the embedder): read them inside tests and
 * hooks only — before, they throw.
 */
export class ChatFixture {
  readonly core: Core;
  readonly dataDir: string;
  private readonly cleanupCore: () => Promise<void>;
  private started?: { server: OllamaTestServer; repo: TestRepo; repoId: string };
  private opened: { kb?: KnowledgeBase; store?: ConversationStore; raw?: Db; client?: LlmClient; embedder?: Embedder } = {};

  constructor(private readonly options: ChatFixtureOptions = {}) {
    const temp = createTempCore();
    this.core = temp.core;
    this.dataDir = temp.dataDir;
    this.cleanupCore = temp.cleanup;
  }

  /** The loopback model server (its script and requests are emptied before each test). */
  get server(): OllamaTestServer {
    return this.ready().server;
  }

  get repo(): TestRepo {
    return this.ready().repo;
  }

  get repoId(): string {
    return this.ready().repoId;
  }

  /** The repository's index, opened read-only with vectors. */
  get kb(): KnowledgeBase {
    return (this.opened.kb ??= KnowledgeBase.open(repoPaths(this.dataDir, this.repoId).curated, this.repoId, { withVectors: true }));
  }

  /** A conversation store of its own, in the data folder. */
  get store(): ConversationStore {
    this.ready();
    return (this.opened.store ??= ConversationStore.open(join(this.dataDir, 'conversations-raw.sqlite')));
  }

  /** The call log `client` writes to, in the data folder. */
  get raw(): Db {
    this.ready();
    return (this.opened.raw ??= openRawDatabase(join(this.dataDir, 'calls-raw.sqlite')));
  }

  /** A client with every role on the loopback server (embedding too with `embedding`), one attempt per call. */
  get client(): LlmClient {
    const embedding = this.options.embedding ? LOOPBACK_EMBEDDING_MODEL : undefined;
    return (this.opened.client ??= clientFromToml(loopbackToml(this.server.url, { embedding }), this.raw));
  }

  /** The loopback server's vectors with `embedding`, else the shared default embedder. */
  get embedder(): Embedder {
    this.ready();
    if (!this.options.embedding) return sharedDefaultEmbedder();
    return (this.opened.embedder ??= createEmbedder({ ...LOOPBACK_EMBEDDER, embedBatch: async (texts, signal) => (await this.client.embed(texts, { signal })).vectors }));
  }

  /** Put a pipeline file into the repository's .cleanroom/pipelines. */
  readonly pipelineFile = (name: string, text: string): void => {
    mkdirSync(join(this.repo.root, REPO_PIPELINE_DIR), { recursive: true });
    writeFileSync(join(this.repo.root, REPO_PIPELINE_DIR, name), text);
  };

  /** A pipeline of the repository (built-in or its own), expecting every pipeline file to load. */
  readonly pipeline = (name: string): ChatPipeline => {
    const set = loadPipelines({ repoRoot: this.repo.root });
    expect(set.problems).toEqual([]);
    return set.pipelines.get(name)!;
  };

  /** A turn's dependencies over this fixture: its index, store, embedder and client, fresh events; `overrides` win. */
  readonly deps = (pipeline: ChatPipeline, overrides: Partial<TurnDeps> = {}): TurnDeps => {
    const client = this.client;
    return { kb: this.kb, store: this.store, events: new EventBus(), embedder: this.embedder, pipeline, complete: (p, o) => client.complete(p, o), stream: (p, o) => client.stream(p, o), ...overrides };
  };

  /** The prompts the server received, in order (the last user message of each /api/chat call). */
  readonly prompts = (): string[] => this.server.requests.filter((r) => r.path === '/api/chat').map((r) => (r.body as { messages: Array<{ content: string }> }).messages.at(-1)!.content);

  /** Start the server, build, add and index the repository (beforeAll). */
  async setUp(): Promise<void> {
    const server = await OllamaTestServer.start();
    server.install(LOOPBACK_CHAT_MODEL);
    if (this.options.embedding) server.install(LOOPBACK_EMBEDDING_MODEL);
    const repo = (this.options.repo ?? createChatRepo)();
    this.started = { server, repo, repoId: '' };
    if (this.options.engineConfig !== undefined) writeFileSync(join(this.dataDir, 'config.toml'), `${loopbackToml(server.url)}${this.options.engineConfig}`);
    for (const [name, text] of Object.entries(this.options.pipelines ?? {})) this.pipelineFile(name, text);
    const added = await this.core.handlers['repos/add']({ path: repo.root });
    await this.core.runs.wait(added.runId);
    this.started.repoId = added.repo.id;
    if (this.options.embedChunks) await this.embedChunks();
  }

  /** Close what was opened, then the server, the repository and the engine (afterAll). */
  async tearDown(): Promise<void> {
    const { kb, store, raw } = this.opened;
    raw?.close();
    store?.close();
    kb?.close();
    await this.started?.server.close();
    this.started?.repo.cleanup();
    await this.cleanupCore();
  }

  private async embedChunks(): Promise<void> {
    const db = openDatabase(repoPaths(this.dataDir, this.repoId).curated);
    try {
      await embedRepository(db, this.embedder);
    } finally {
      db.close();
    }
  }

  private ready(): { server: OllamaTestServer; repo: TestRepo; repoId: string } {
    if (!this.started) throw new Error('The chat fixture is set up in beforeAll: read its server, repository, index and clients inside tests and hooks.');
    return this.started;
  }
}

/**
 * Register the chat fixture's hooks in the current file or describe block: set up in beforeAll,
 * the server's script and requests emptied before each test, everything closed in afterAll.
 */
export function useChatFixture(options: ChatFixtureOptions = {}): ChatFixture {
  const fx = new ChatFixture(options);
  beforeAll(() => fx.setUp(), 60_000);
  afterAll(() => fx.tearDown());
  beforeEach(() => resetScript(fx.server));
  return fx;
}
