import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cacheDir as layoutCacheDir } from '../../platform/layout';
import { AppError, type ChatPipelineInfo, type ChatPipelines, type Handlers, type RepoInfo } from '../../../shared/contract';
import { DEFAULT_PIPELINE, describeProblem, loadPipelines, REPO_PIPELINE_DIR, type ChatPipeline, type PipelineSet, runChatTurn, conversationMarkdown, RetrievedNodeCache, withNodeCache, ConversationStore, type TurnLimits } from '../../features/chat';
import { loadUserConfigCached } from '../../platform/config/load';
import type { EngineContext } from '../engine';
import type { ModelServices } from '../../platform/llm/services';
import type { Embedder } from '../../knowledge/search/embedder';
import { SummaryStore } from '../../knowledge/summaries/store';

type ChatHandlers = Pick<Handlers, 'chat/ask' | 'chat/history' | 'chat/pipelines' | 'chat/setDefaultPipeline' | 'chat/rename' | 'chat/delete' | 'chat/export'>;

/** Where a turn's pipeline came from when the request named none. */
type ImplicitPipeline = { name: string; from: 'conversation' | 'repository' };

/**
 * The pipeline a turn runs: the one named in the request, else the conversation's (it keeps the
 * pipeline its turns ran), else the repository's chosen default, else `default`. A named pipeline
 * that was refused, or does not exist, is a VALIDATION error with the reason; one that came from the
 * conversation or the repository's setting and can no longer be used gives way to `default`, said in
 * the trace. The refused pipelines of the repository travel in the trace of every turn.
 */
function pipelineFor(repoRoot: string, name: string | undefined, implicit: ImplicitPipeline | undefined, cacheDir: string): { pipeline: ChatPipeline; problems: string[] } {
  const set = loadPipelines({ repoRoot, cacheDir });
  const problems = set.problems.map(describeProblem);
  if (name === undefined && implicit) {
    const found = set.pipelines.get(implicit.name);
    if (found) return { pipeline: found, problems };
    const whose = implicit.from === 'conversation' ? 'this conversation ran' : "the repository's default";
    problems.unshift(`The pipeline "${implicit.name}" (${whose}) cannot be used now (${unusable(set, implicit.name)}); the built-in default ran instead.`);
    return { pipeline: set.pipelines.get(DEFAULT_PIPELINE)!, problems };
  }
  const wanted = name ?? DEFAULT_PIPELINE;
  const pipeline = set.pipelines.get(wanted);
  if (pipeline) return { pipeline, problems };
  const refused = set.problems.filter((p) => p.name === wanted).map(describeProblem);
  if (refused.length) throw new AppError('VALIDATION', `The chat pipeline "${wanted}" was refused: ${refused.join('; ')}. Fix the file, or ask without --pipeline to use the default.`);
  throw new AppError('VALIDATION', `There is no chat pipeline "${wanted}"; known: ${[...set.pipelines.keys()].join(', ')}.`);
}

/** Why a pipeline of this set cannot be used: its refusal, or that no file defines it. */
function unusable(set: PipelineSet, name: string): string {
  const refused = set.problems.filter((p) => p.name === name).map(describeProblem);
  return refused.length ? `refused: ${refused.join('; ')}` : 'no pipeline file defines it any more';
}

/** The pipelines of a repository, its refused ones and its default (the chosen one when usable). */
function pipelinesOf(info: RepoInfo, cacheDir: string): ChatPipelines {
  const set = loadPipelines({ repoRoot: info.path, cacheDir });
  const chosen = info.settings?.chatPipeline;
  const isUsable = chosen !== undefined && set.pipelines.has(chosen);
  return {
    pipelines: [...set.pipelines.values()].map(pipelineInfo),
    problems: set.problems.map(describeProblem),
    refused: set.problems.map((p) => ({ ...p })),
    defaultPipeline: isUsable ? chosen : DEFAULT_PIPELINE,
    ...(chosen !== undefined && !isUsable ? { chosenDefault: { name: chosen, problem: unusable(set, chosen) } } : {}),
  };
}

function pipelineInfo(p: ChatPipeline): ChatPipelineInfo {
  return { name: p.name, file: p.file, lineage: p.lineage, entryStepId: p.settings.entry_step_id, steps: p.steps.size, warnings: p.warnings, settings: p.settings };
}

/** [chat] of the user-level config; a file that does not load leaves the defaults (its model calls say why it does not). */
function turnLimits(dataDir: string): Partial<TurnLimits> {
  try {
    const chat = loadUserConfigCached(dataDir).values.chat;
    return { maxAnswerKb: chat.max_answer_kb, maxModelCalls: chat.max_model_calls };
  } catch {
    return {};
  }
}

/** NOT_FOUND for a conversation id the repository has no messages for, saying where the ids are listed. */
export function unknownConversation(conversationId: string, repoName: string): AppError {
  return new AppError('NOT_FOUND', `${repoName} has no conversation ${conversationId}; the Chat page lists them (cra chat --list --repo <path>).`);
}

/** What chat uses of the engine. */
export type ChatDeps = Pick<EngineContext, 'repos' | 'runs' | 'events' | 'registry' | 'ports'>;

/** What the chat domain gives the composition root. */
export interface ChatDomain {
  handlers: ChatHandlers;
  /** Nodes retrieved per repository, shared by its turns until the TTL or an index change. */
  nodeCache: RetrievedNodeCache;
  dispose(): void;
}

/**
 * Chat over a repository (issue #14): each question is a `chat` run; conversations live in the
 * repository's raw DB. Several chats may run at once: each turn keeps its own state, and reads
 * the index through the repository's one reader (kept open between turns: opening and preparing
 * it per turn cost more than the search; every read is synchronous, and a lease keeps a replaced
 * index open until the turn reading it ends).
 */
export function createChatDomain(ctx: ChatDeps, llm: Pick<ModelServices, 'client'>, embedder: Embedder): ChatDomain {
  // Conversations are a table of the repository's raw DB, reached through its handle.
  const nodeCache = new RetrievedNodeCache();
  // The pipelines' parsed YAML, kept between processes (a CLI chat parses it once, not every turn).
  const cacheDir = layoutCacheDir(ctx.ports.dataDir);
  const stopListening = ctx.events.on('repos/removed', ({ repoId }) => nodeCache.invalidate(repoId));
  // An index starting makes the cached nodes stale at once (its end changes the generation too).
  const stopWatchingIndex = ctx.events.on('repos/changed', (info) => {
    if (info.status === 'indexing') nodeCache.invalidate(info.id);
  });

  const handlers: ChatHandlers = {
    'chat/ask': async ({ repoId, question, conversationId, mode, language, detected, pipeline: pipelineName }) => {
      // NOT_FOUND / NOT_INDEXED before a run starts, as for search; so is a refused pipeline.
      const repo = ctx.repos.openIndexed(repoId);
      const { info } = repo;
      const id = conversationId ?? `c-${randomUUID()}`;
      const store = repo.table(ConversationStore);
      const kept = conversationId ? store.conversation(conversationId)?.pipeline : undefined;
      const chosen = info.settings?.chatPipeline;
      const implicit: ImplicitPipeline | undefined = kept ? { name: kept, from: 'conversation' } : chosen ? { name: chosen, from: 'repository' } : undefined;
      let pipelineChosen;
      try {
        pipelineChosen = pipelineFor(info.path, pipelineName, implicit, cacheDir);
      } catch (error) {
        repo.dispose();
        throw error;
      }
      const { pipeline, problems } = pipelineChosen;
      const nodes = nodeCache.forRepo(info.id, info.lastIndexedAt ?? '');
      const { runId } = ctx.runs.start(
        'chat',
        `Chat · ${info.name}: ${question.slice(0, 60)}`,
        async ({ runId, signal }) => {
          const kb = repo.kb;
          const summaryFile = repo.paths.summaries;
          let summaries: SummaryStore | undefined;
          try {
            // Absent summaries are skipped, not an error.
            summaries = existsSync(summaryFile) ? SummaryStore.open(summaryFile) : undefined;
            const message = await runChatTurn(
              {
                kb: withNodeCache(kb, nodes),
                store,
                events: ctx.events,
                embedder,
                complete: (prompt, options) => llm.client.complete(prompt, options),
                stream: (prompt, options) => llm.client.stream(prompt, options),
                pipeline,
                pipelineProblems: problems,
                decisions: store.decisionLog(),
                limits: turnLimits(ctx.ports.dataDir),
                ...(summaries ? { summaries } : {}),
              },
              { runId, repoId: info.id, conversationId: id, question, mode, signal, ...(language ? { language } : {}), ...(detected ? { detected } : {}) },
            );
            return { conversationId: id, messageId: message.id };
          } finally {
            summaries?.close();
            repo.dispose();
          }
        },
        { repoId: info.id, conversationId: id, question },
      );
      return { ...ctx.runs.started(runId, 'chat'), conversationId: id };
    },
    'chat/history': async ({ repoId, conversationId }) =>
      ctx.repos.use(repoId, (repo) => {
        const store = repo.table(ConversationStore);
        return { conversations: store.conversations(), messages: conversationId ? store.messages(conversationId) : [] };
      }),
    'chat/rename': async ({ repoId, conversationId, title }) =>
      ctx.repos.use(repoId, ({ info, table }) => {
        const store = table(ConversationStore);
        if (!store.rename(conversationId, title)) throw unknownConversation(conversationId, info.name);
        return store.conversation(conversationId)!;
      }),
    'chat/delete': async ({ repoId, conversationId }) =>
      ctx.repos.use(repoId, ({ info, table }) => {
        // A turn still answering would store its answer after the delete, bringing the conversation back.
        const answering = ctx.runs.list().some((r) => r.kind === 'chat' && r.status === 'running' && r.subject.repoId === info.id && r.subject.conversationId === conversationId);
        if (answering) throw new AppError('VALIDATION', `Conversation ${conversationId} is still answering a question: Stop it first, then delete it.`);
        const deleted = table(ConversationStore).delete(conversationId);
        if (deleted === 0) throw unknownConversation(conversationId, info.name);
        return { deleted };
      }),
    'chat/export': async ({ repoId, conversationId }) =>
      ctx.repos.use(repoId, ({ info, table }) => {
        const store = table(ConversationStore);
        const summary = store.conversation(conversationId);
        if (!summary) throw unknownConversation(conversationId, info.name);
        return conversationMarkdown(summary, store.messages(conversationId), info.name);
      }),
    'chat/pipelines': async ({ repoId }) => ctx.repos.use(repoId, ({ info }) => pipelinesOf(info, cacheDir)),
    'chat/setDefaultPipeline': async ({ repoId, pipeline }) => {
      const info = ctx.repos.use(repoId, (repo) => repo.info);
      if (pipeline !== null && pipeline !== DEFAULT_PIPELINE) {
        const set = loadPipelines({ repoRoot: info.path, cacheDir });
        if (!set.pipelines.has(pipeline)) {
          if (set.problems.some((p) => p.name === pipeline)) {
            throw new AppError('VALIDATION', `The chat pipeline "${pipeline}" cannot be the default of ${info.name}: ${unusable(set, pipeline)}. Fix the file, or choose another pipeline.`);
          }
          throw new AppError('VALIDATION', `${info.name} has no chat pipeline "${pipeline}"; choose one of ${[...set.pipelines.keys()].join(', ')} (a repository adds its own in ${REPO_PIPELINE_DIR}/*.yaml).`);
        }
      }
      // Choosing `default` is the same as choosing nothing: the built-in one.
      const repo = ctx.registry.updateSettings(info.id, { chatPipeline: pipeline === DEFAULT_PIPELINE ? null : pipeline })!;
      ctx.events.emit('repos/changed', repo);
      return { ...pipelinesOf(repo, cacheDir), repo };
    },
  };
  return {
    handlers,
    nodeCache,
    dispose() {
      stopListening();
      stopWatchingIndex();
    },
  };
}
