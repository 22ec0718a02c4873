import type { ChatMessage, ConversationSummary } from '../../../shared/contract/chat';
import type { Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import { RawDecisionLog, type DecisionSink } from '../retrieval';

type Row = {
  id: number;
  conversationId: string;
  role: 'user' | 'assistant';
  content: string;
  runId: string | null;
  status: ChatMessage['status'] | null;
  error: string | null;
  sourcesJson: string | null;
  citationsJson: string | null;
  traceJson: string | null;
  createdAt: string;
};

const COLUMNS = `id, conversation_id as conversationId, role, content, run_id as runId, status, error, sources_json as sourcesJson,
  citations_json as citationsJson, trace_json as traceJson, created_at as createdAt`;

/** A stored rolling summary of a conversation's history. */
export interface HistorySummary {
  id: number;
  summary: string;
  /** The last message the summary covers; later messages are sent raw after it. */
  throughMessageId: number;
  createdAt: string;
}

function toMessage(r: Row): ChatMessage {
  return {
    id: r.id,
    conversationId: r.conversationId,
    role: r.role,
    content: r.content,
    createdAt: r.createdAt,
    ...(r.runId ? { runId: r.runId } : {}),
    ...(r.status ? { status: r.status } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(r.sourcesJson ? { sources: JSON.parse(r.sourcesJson) } : {}),
    ...(r.citationsJson ? { citations: JSON.parse(r.citationsJson) } : {}),
    ...(r.traceJson ? { trace: JSON.parse(r.traceJson) } : {}),
  };
}

/**
 * A repository's conversations, in its raw DB (`chat_messages`, append-only like the rest of raw:
 * a conversation is the messages that share its id; its title is its first question).
 */
export class ConversationStore {
  /** Over an open raw DB (a repository handle's: `repo.table(ConversationStore)`). */
  constructor(private readonly db: Db) {}

  /** Open (creating or upgrading) the repository's raw DB. */
  static open(rawFile: string): ConversationStore {
    return new ConversationStore(openRawDatabase(rawFile));
  }

  /** Append a message; returns it as stored. */
  append(message: Omit<ChatMessage, 'id' | 'createdAt'>): ChatMessage {
    const createdAt = new Date().toISOString();
    const info = this.db
      .prepare(
        `insert into chat_messages (conversation_id, role, content, run_id, status, error, sources_json, citations_json, trace_json, created_at)
         values (@conversationId, @role, @content, @runId, @status, @error, @sources, @citations, @trace, @createdAt)`,
      )
      .run({
        conversationId: message.conversationId,
        role: message.role,
        content: message.content,
        runId: message.runId ?? null,
        status: message.status ?? null,
        error: message.error ?? null,
        sources: message.sources ? JSON.stringify(message.sources) : null,
        citations: message.citations ? JSON.stringify(message.citations) : null,
        trace: message.trace ? JSON.stringify(message.trace) : null,
        createdAt,
      });
    return { ...message, id: Number(info.lastInsertRowid), createdAt };
  }

  /** The messages of a conversation, oldest first. */
  messages(conversationId: string): ChatMessage[] {
    return (this.db.prepare(`select ${COLUMNS} from chat_messages where conversation_id = ? order by id`).all(conversationId) as Row[]).map(toMessage);
  }

  /** Every conversation, most recently active first; its title is the one given, else its first question. */
  conversations(): ConversationSummary[] {
    return this.summaries('', []);
  }

  /** One conversation as the list shows it, or undefined when the repository has no such conversation. */
  conversation(conversationId: string): ConversationSummary | undefined {
    return this.summaries('where m.conversation_id = ?', [conversationId])[0];
  }

  /** Give a conversation a title; false when it has no messages (nothing to rename). */
  rename(conversationId: string, title: string): boolean {
    if (!this.conversation(conversationId)) return false;
    this.db
      .prepare(
        `insert into chat_conversations (conversation_id, title, renamed_at) values (?, ?, ?)
         on conflict(conversation_id) do update set title = excluded.title, renamed_at = excluded.renamed_at`,
      )
      .run(conversationId, title, new Date().toISOString());
    return true;
  }

  /** Delete a conversation's messages, title and history summaries, together; returns the number of messages removed. */
  delete(conversationId: string): number {
    return this.db.transaction(() => {
      this.db.prepare('delete from chat_conversations where conversation_id = ?').run(conversationId);
      this.db.prepare('delete from chat_history_summaries where conversation_id = ?').run(conversationId);
      return this.db.prepare('delete from chat_messages where conversation_id = ?').run(conversationId).changes;
    })();
  }

  private summaries(where: string, params: unknown[]): ConversationSummary[] {
    // The pipeline and the chosen language are read from the trace of the latest answer: the turn
    // stores them there, so the conversation keeps them without a second record to keep in step.
    const latestTrace = `(select a.trace_json from chat_messages a where a.conversation_id = m.conversation_id and a.role = 'assistant' and json_valid(a.trace_json) order by a.id desc limit 1)`;
    return this.db
      .prepare(
        `select conversationId, messages, updatedAt, title, json_extract(trace, '$.pipeline.name') as pipeline,
           case when json_extract(trace, '$.language.source') = 'chosen' then json_extract(trace, '$.language.language') end as language
         from (select m.conversation_id as conversationId, count(*) as messages, max(m.created_at) as updatedAt, max(m.id) as lastId,
           coalesce((select t.title from chat_conversations t where t.conversation_id = m.conversation_id),
             (select content from chat_messages f where f.conversation_id = m.conversation_id and f.role = 'user' order by f.id limit 1)) as title,
           ${latestTrace} as trace
         from chat_messages m ${where} group by m.conversation_id) order by lastId desc`,
      )
      .all(...params)
      .map((r) => {
        const { title, pipeline, language, ...row } = r as Omit<ConversationSummary, 'pipeline' | 'language'> & { title: string | null; pipeline: unknown; language: unknown };
        return {
          ...row,
          title: (title ?? '').slice(0, 120),
          ...(typeof pipeline === 'string' ? { pipeline } : {}),
          ...(typeof language === 'string' ? { language } : {}),
        };
      });
  }

  /** The newest rolling summary of a conversation's history (the pointer), if any. */
  latestSummary(conversationId: string): HistorySummary | undefined {
    return this.db
      .prepare(`select id, summary, through_message_id as throughMessageId, created_at as createdAt from chat_history_summaries where conversation_id = ? order by id desc limit 1`)
      .get(conversationId) as HistorySummary | undefined;
  }

  /** Persist a new rolling summary covering the messages up to `throughMessageId`; it becomes the pointer. */
  appendSummary(entry: { conversationId: string; summary: string; throughMessageId: number; question: string; modelCallId?: number }): HistorySummary {
    const createdAt = new Date().toISOString();
    const info = this.db
      .prepare(
        `insert into chat_history_summaries (conversation_id, summary, through_message_id, question, model_call_id, created_at)
         values (@conversationId, @summary, @throughMessageId, @question, @modelCallId, @createdAt)`,
      )
      .run({ ...entry, modelCallId: entry.modelCallId ?? null, createdAt });
    return { id: Number(info.lastInsertRowid), summary: entry.summary, throughMessageId: entry.throughMessageId, createdAt };
  }

  /** Where a turn records its retrieval decisions (this raw DB's `retrieval_decisions`). */
  decisionLog(): DecisionSink {
    return new RawDecisionLog(this.db);
  }

  close(): void {
    this.db.close();
  }
}
