/**
 * What a chat turn is given (its dependencies and its question), in a module of its own so that
 * the turn (turn.ts) and its actions (turnActions.ts, evidence.ts) both import it without a cycle.
 */
import type { ChatMode } from '../../../shared/contract/chat';
import type { LanguageDetection } from '../../../shared/language';
import type { EventBus } from '../../platform/runtime/events';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { Embedder } from '../../knowledge/search/embedder';
import type { TurnModel } from './calls';
import type { TurnLimits } from './limits';
import type { ChatPipeline } from './pipeline';
import type { DecisionSink } from '../retrieval';
import type { SummaryStore } from '../../knowledge/summaries/store';
import type { ConversationStore } from './store';

/** What a turn needs: the model calls it makes, the index, the store, the event bus and its pipeline. */
export interface TurnDeps extends TurnModel {
  kb: KnowledgeBase;
  store: ConversationStore;
  events: EventBus;
  embedder: Embedder;
  pipeline: ChatPipeline;
  /** Refused pipelines of the repository (`file:line: reason`), for the trace. */
  pipelineProblems?: string[];
  /** Where the evidence decisions of each round are logged (stage `chat`). */
  decisions?: DecisionSink;
  /** The repository's summary tree, when one was built. */
  summaries?: Pick<SummaryStore, 'nearest' | 'embedderId'>;
  /** [chat] of config.toml; absent: its defaults. */
  limits?: Partial<TurnLimits>;
}

/** One question of a conversation. */
export interface TurnInput {
  runId: string;
  repoId: string;
  conversationId: string;
  question: string;
  mode: ChatMode;
  signal: AbortSignal;
  /** `auto` or absent: detect; an ISO 639-1 code: the person's choice. */
  language?: string;
  /** The detection the caller already ran (chat/ask `detected`), used instead of detecting again. */
  detected?: LanguageDetection;
}
