import { create } from 'zustand';
import type { ChatMode, ConversationExport, ConversationSummary } from '../../../../shared/contract/chat';
import type { ModelCallSummary } from '../../../../shared/contract/logs';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { finishTurn, newConversationId, pendingTurn, turnsFromMessages, updateLast, type Turn } from './reducers';

interface ChatState {
  repoId: string | null;
  conversationId: string;
  conversations: ConversationSummary[];
  turns: Turn[];
  draft: string;
  mode: ChatMode;
  error: OpError | null;
  /** The model calls of a turn's run (for its trace), once asked for; an error when the log could not be read. */
  callsByRun: Record<string, { calls: ModelCallSummary[] } | { error: OpError }>;
  /** The models assigned to the stages a turn uses (null: not read yet, or the config could not be read). */
  models: { routing: string | null; chat: string | null } | null;
}

interface ChatActions {
  setDraft(draft: string): void;
  setMode(mode: ChatMode): void;
  /** Load the repository's conversations (a new one is started when the repository changes). */
  load(repoId: string): Promise<void>;
  open(repoId: string, conversationId: string): Promise<void>;
  newConversation(): void;
  /** Ask the draft in the current conversation. */
  ask(repoId: string): Promise<void>;
  /** Stop the answer being streamed. */
  stop(): Promise<void>;
  /** Give a conversation a title. */
  rename(repoId: string, conversationId: string, title: string): Promise<void>;
  /** Delete a conversation; the page starts a new one when it was the one shown. */
  remove(repoId: string, conversationId: string): Promise<void>;
  /** A conversation as markdown (null when it failed: the error is in state). */
  exportMarkdown(repoId: string, conversationId: string): Promise<ConversationExport | null>;
  /** Read the model calls of a turn's run from the log (once per run, and again when `refresh`). */
  loadCalls(runId: string, refresh?: boolean): Promise<void>;
  /** Subscribe to the chat events once; returns the unsubscriber. */
  listen(): () => void;
}

/** The Chat page: the conversation shown, its turns as they stream, and the list of conversations. */
export const useChatStore = create<ChatState & ChatActions>()((set, get) => ({
  repoId: null,
  conversationId: newConversationId(),
  conversations: [],
  turns: [],
  draft: '',
  mode: 'auto',
  error: null,
  callsByRun: {},
  models: null,
  setDraft: (draft) => set({ draft }),
  setMode: (mode) => set({ mode }),
  load: async (repoId) => {
    if (get().repoId !== repoId) set({ repoId, turns: [], conversationId: newConversationId(), error: null });
    try {
      const { conversations } = await client().call('chat/history', { repoId });
      if (get().repoId === repoId) set({ conversations });
      const { rows } = await client().call('models/assignments', {});
      const modelOf = (stage: string) => rows.find((r) => r.stage === stage)?.model ?? null;
      set({ models: { routing: modelOf('routing'), chat: modelOf('chat') } });
    } catch (error) {
      set({ error: toOpError(error) });
    }
  },
  open: async (repoId, conversationId) => {
    try {
      const { messages } = await client().call('chat/history', { repoId, conversationId });
      set({ conversationId, turns: turnsFromMessages(messages), error: null });
    } catch (error) {
      set({ error: toOpError(error) });
    }
  },
  newConversation: () => set({ conversationId: newConversationId(), turns: [], error: null }),
  ask: async (repoId) => {
    const { draft, mode, conversationId, turns } = get();
    const question = draft.trim();
    if (!question || turns.some((t) => t.status === 'retrieving' || t.status === 'streaming')) return;
    set({ draft: '', turns: [...turns, pendingTurn(question)], error: null });
    try {
      const { runId } = await client().call('chat/ask', { repoId, question, conversationId, mode });
      set((s) => ({ turns: updateLast(s.turns, (t) => ({ ...t, runId: t.runId ?? runId })) }));
    } catch (error) {
      const e = toOpError(error);
      set((s) => ({ turns: updateLast(s.turns, (t) => ({ ...t, status: e ? 'failed' : 'cancelled', error: e?.message ?? null })) }));
    }
  },
  rename: async (repoId, conversationId, title) => {
    try {
      const renamed = await client().call('chat/rename', { repoId, conversationId, title });
      set((s) => ({ conversations: s.conversations.map((c) => (c.conversationId === conversationId ? renamed : c)), error: null }));
    } catch (error) {
      set({ error: toOpError(error) });
    }
  },
  remove: async (repoId, conversationId) => {
    try {
      await client().call('chat/delete', { repoId, conversationId });
      set((s) => ({
        conversations: s.conversations.filter((c) => c.conversationId !== conversationId),
        ...(s.conversationId === conversationId ? { conversationId: newConversationId(), turns: [] } : {}),
        error: null,
      }));
    } catch (error) {
      set({ error: toOpError(error) });
    }
  },
  exportMarkdown: async (repoId, conversationId) => {
    try {
      return await client().call('chat/export', { repoId, conversationId });
    } catch (error) {
      set({ error: toOpError(error) });
      return null;
    }
  },
  loadCalls: async (runId, refresh = false) => {
    if (get().callsByRun[runId] && !refresh) return;
    try {
      // A chat run logs its calls in its repository's raw log.
      const repoId = get().repoId;
      const { calls } = await client().call('logs/list', { ...(repoId ? { repoId } : {}), runId, errorsOnly: false, limit: 100, offset: 0 });
      set((s) => ({ callsByRun: { ...s.callsByRun, [runId]: { calls: [...calls].reverse() } } }));
    } catch (error) {
      const e = toOpError(error);
      if (e) set((s) => ({ callsByRun: { ...s.callsByRun, [runId]: { error: e } } }));
    }
  },
  stop: async () => {
    const last = get().turns.at(-1);
    if (last?.runId && (last.status === 'retrieving' || last.status === 'streaming')) await client().call('run/cancel', { runId: last.runId });
  },
  listen: () => {
    const c = client();
    // Events are matched by conversation: the page made its id, so the first events of a turn are
    // recognised even when they arrive before the answer to chat/ask (which carries the run id).
    const mine = (conversationId: string) => conversationId === get().conversationId;
    const stops = [
      c.subscribe('chat/sources', (e) => {
        if (!mine(e.conversationId)) return;
        set((s) => ({ turns: updateLast(s.turns, (t) => ({ ...t, runId: e.runId, sources: e.sources, trace: e.trace, status: 'streaming' })) }));
        // The question is stored by now: a new conversation shows in the list while its answer streams.
        if (!get().conversations.some((c) => c.conversationId === e.conversationId) && get().repoId === e.repoId) void get().load(e.repoId);
      }),
      c.subscribe('chat/token', (e) => {
        if (mine(e.conversationId)) set((s) => ({ turns: updateLast(s.turns, (t) => ({ ...t, answer: t.answer + e.text })) }));
      }),
      c.subscribe('chat/done', (e) => {
        if (mine(e.conversationId)) set((s) => ({ turns: updateLast(s.turns, (t) => finishTurn(t, e.message)) }));
        // A trace opened while the answer streamed shows the answer call too once it is logged.
        if (get().callsByRun[e.runId]) void get().loadCalls(e.runId, true);
        const repoId = get().repoId;
        if (repoId === e.repoId) void get().load(repoId);
      }),
    ];
    return () => stops.forEach((stop) => stop());
  },
}));
