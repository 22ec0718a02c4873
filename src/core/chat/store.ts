import type { ChatMessage, ConversationSummary } from '../../shared/contract/chat';
import type { Db } from '../db/open';
import { openRawDatabase } from '../db/raw';
import { RawDecisionLog, type DecisionSink } from '../retrieval/decisionLog';

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
  private constructor(private readonly db: Db) {}

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

  /** Every conversation, most recently active first. */
  conversations(): ConversationSummary[] {
    return this.db
      .prepare(
        `select conversation_id as conversationId, count(*) as messages, max(created_at) as updatedAt,
           (select content from chat_messages f where f.conversation_id = m.conversation_id and f.role = 'user' order by f.id limit 1) as title
         from chat_messages m group by conversation_id order by max(id) desc`,
      )
      .all()
      .map((r) => {
        const row = r as ConversationSummary & { title: string | null };
        return { ...row, title: (row.title ?? '').slice(0, 120) };
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
