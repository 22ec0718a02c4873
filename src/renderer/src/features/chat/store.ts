import { create } from 'zustand';
import type { RunInfo } from '../../../../shared/contract';
import type { ChatMode, ChatPipelines, ConversationExport, ConversationSummary } from '../../../../shared/contract/chat';
import type { ModelCallSummary } from '../../../../shared/contract/logs';
import { client, followRunEvents } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { finishTurn, isInFlight, leaveConversation, pendingTurn, reopenConversation, turnsFromMessages, updateBackground, updateLast, type BackgroundTurns, type Turn } from './reducers';

interface ChatState {
  repoId: string | null;
  /** The conversation shown; null for a new one (the engine names it when its first question is asked). */
  conversationId: string | null;
  conversations: ConversationSummary[];
  turns: Turn[];
  draft: string;
  mode: ChatMode;
  error: OpError | null;
  /** The model calls of a turn's run (for its trace), once asked for; an error when the log could not be read. */
  callsByRun: Record<string, { calls: ModelCallSummary[] } | { error: OpError }>;
  /** The models assigned to the stages a turn uses (null: not read yet, or the config could not be read). */
  models: { routing: string | null; chat: string | null } | null;
  /** In-flight turns of conversations not shown (several chats at once), by conversation. */
  background: BackgroundTurns;
  /** The repository's pipelines, refused ones and default (null: not read yet). */
  pipelines: ChatPipelines | null;
  /** The pipeline chosen for the conversation shown (null: the repository's default). */
  pipeline: string | null;
  /** `auto` (detected offline per question) or the ISO 639-1 code chosen for the conversation. */
  language: string;
  /** Why the repository's pipelines could not be read or its default not changed. */
  pipelineError: OpError | null;
}

interface ChatActions {
  setDraft(draft: string): void;
  setMode(mode: ChatMode): void;
  /** Choose the pipeline of the conversation shown. */
  setPipeline(name: string): void;
  /** Choose the language of the conversation shown (`auto`: detected). */
  setLanguage(language: string): void;
  /** Read the repository's pipelines again (their files are validated on every read). */
  loadPipelines(repoId: string): Promise<void>;
  /** Make a pipeline the repository's default for new conversations (null: the built-in one). */
  setDefaultPipeline(repoId: string, name: string | null): Promise<void>;
  /** Load the repository's conversations (a new one is started when the repository changes). */
  load(repoId: string): Promise<void>;
  open(repoId: string, conversationId: string): Promise<void>;
  newConversation(): void;
  /** Ask the draft in the current conversation. */
  ask(repoId: string): Promise<void>;
  /** Ask the last question of the conversation again (its answer failed or was stopped). */
  retry(repoId: string): Promise<void>;
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
  /** Follow answers started elsewhere (another window) in the conversation shown; returns the unsubscriber. */
  listen(): () => void;
}

/** The Chat page: the conversation shown, its turns as they stream, and the list of conversations. */
export const useChatStore = create<ChatState & ChatActions>()((set, get) => ({
  repoId: null,
  conversationId: null,
  conversations: [],
  turns: [],
  draft: '',
  mode: 'auto',
  error: null,
  callsByRun: {},
  models: null,
  background: {},
  pipelines: null,
  pipeline: null,
  language: 'auto',
  pipelineError: null,
  setDraft: (draft) => set({ draft }),
  setMode: (mode) => set({ mode }),
  setPipeline: (pipeline) => set({ pipeline }),
  setLanguage: (language) => set({ language }),
  loadPipelines: async (repoId) => {
    try {
      const pipelines = await client().call('chat/pipelines', { repoId });
      if (get().repoId === repoId) set({ pipelines, pipelineError: null });
    } catch (error) {
      set({ pipelineError: toOpError(error) });
    }
  },
  setDefaultPipeline: async (repoId, name) => {
    try {
      const { repo: _repo, ...pipelines } = await client().call('chat/setDefaultPipeline', { repoId, pipeline: name });
      if (get().repoId === repoId) set({ pipelines, pipelineError: null });
    } catch (error) {
      set({ pipelineError: toOpError(error) });
    }
  },
  load: async (repoId) => {
    if (get().repoId !== repoId) {
      // A new conversation of another repository: its own pipeline and language, not the last ones.
      set({ repoId, turns: [], conversationId: null, error: null, background: {}, pipelines: null, pipeline: null, language: 'auto', pipelineError: null });
    }
    void get().loadPipelines(repoId);
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
      set((s) => {
        const left = s.conversationId === conversationId ? s.background : leaveConversation(s.background, s.conversationId, s.turns);
        // The conversation goes on with the pipeline and language its latest turn used.
        const kept = s.conversations.find((c) => c.conversationId === conversationId);
        return { conversationId, ...reopenConversation(left, conversationId, turnsFromMessages(messages)), error: null, pipeline: kept?.pipeline ?? null, language: kept?.language ?? 'auto' };
      });
      // An answer still being written (asked in another window, or before a reload) is shown in full.
      const running = await client().call('run/list', { includeFinished: false });
      const live = running.find((r): r is RunInfo<'chat'> => r.kind === 'chat' && r.subject.conversationId === conversationId);
      if (live && get().conversationId === conversationId) showRun(live);
    } catch (error) {
      set({ error: toOpError(error) });
    }
  },
  // A new conversation starts on the repository's default pipeline and detects its language: a
  // language chosen for one conversation would otherwise translate the next one's questions.
  newConversation: () => set((s) => ({ background: leaveConversation(s.background, s.conversationId, s.turns), conversationId: null, turns: [], error: null, pipeline: null, language: 'auto' })),
  ask: async (repoId) => {
    const question = get().draft.trim();
    if (!question || get().turns.some(isInFlight)) return;
    set({ draft: '' });
    await askQuestion(repoId, question);
  },
  retry: async (repoId) => {
    const last = get().turns.at(-1);
    if (!last || (last.status !== 'failed' && last.status !== 'cancelled')) return;
    await askQuestion(repoId, last.question);
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
        ...(s.conversationId === conversationId ? { conversationId: null, turns: [], pipeline: null, language: 'auto' } : {}),
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
  listen: () =>
    client().subscribe('run/started', (run) => {
      if (run.kind === 'chat' && run.subject.conversationId === get().conversationId) showRun(run);
    }),
}));

/** The chat runs this page follows, by run id (each once). */
const followed = new Map<string, () => void>();

/**
 * Follow a chat run's events into its conversation's last turn (the one shown, or a background one):
 * from the run's log first, so nothing before this page attached is missed, then live.
 */
function follow(runId: string, conversationId: string): void {
  if (followed.has(runId)) return;
  followed.set(runId, () => {});
  const set = useChatStore.setState;
  const apply = (update: (turn: Turn) => Turn) =>
    set((s) => (conversationId === s.conversationId ? { turns: updateLast(s.turns, update) } : { background: updateBackground(s.background, conversationId, update) }));
  const end = () => {
    followed.get(runId)?.();
    followed.delete(runId);
  };
  void followRunEvents(runId, (e) => {
    const { repoId, conversations } = useChatStore.getState();
    if (e.event === 'chat/sources') {
      apply((t) => ({ ...t, runId, sources: e.payload.sources, trace: e.payload.trace, status: 'streaming' }));
      // The question is stored by now: a new conversation shows in the list while its answer streams.
      if (!conversations.some((c) => c.conversationId === conversationId) && repoId === e.payload.repoId) void useChatStore.getState().load(e.payload.repoId);
    } else if (e.event === 'chat/token') apply((t) => ({ ...t, answer: t.answer + e.payload.text }));
    else if (e.event === 'chat/done') {
      if (conversationId === useChatStore.getState().conversationId) apply((t) => finishTurn(t, e.payload.message));
      else set((s) => ({ background: Object.fromEntries(Object.entries(s.background).filter(([id]) => id !== conversationId)) }));
      // A trace opened while the answer streamed shows the answer call too once it is logged.
      if (useChatStore.getState().callsByRun[runId]) void useChatStore.getState().loadCalls(runId, true);
      if (repoId === e.payload.repoId) void useChatStore.getState().load(repoId);
    } else if (e.event === 'run/finished') {
      // A run that ended without storing an answer (refused before its question was stored).
      if (e.payload.status !== 'done') apply((t) => (isInFlight(t) && t.runId === runId ? { ...t, status: e.payload.status === 'cancelled' ? 'cancelled' : 'failed', error: e.payload.error?.message ?? null } : t));
      end();
    }
  }).then(
    (f) => {
      if (followed.has(runId)) followed.set(runId, f.stop);
      else f.stop();
    },
    () => followed.delete(runId),
  );
}

/** Show a chat run of the conversation shown that this page did not start: its turn, then its events. */
function showRun(run: RunInfo<'chat'>): void {
  if (followed.has(run.runId)) return;
  useChatStore.setState((s) => {
    const last = s.turns.at(-1);
    // This page's own question, whose chat/ask has not answered yet (run/started can come first): its turn takes the run.
    if (last && isInFlight(last) && last.runId === null && last.question === run.subject.question) return { turns: [...s.turns.slice(0, -1), { ...last, runId: run.runId }] };
    // Its question may be stored already (the last turn, with no answer yet).
    const stored = last && last.question === run.subject.question && last.answer === '' && !isInFlight(last);
    const turn = { ...pendingTurn(run.subject.question), runId: run.runId };
    return { turns: stored ? [...s.turns.slice(0, -1), turn] : [...s.turns, turn] };
  });
  follow(run.runId, run.subject.conversationId);
}

/** Ask a question in the conversation shown, with its mode, pipeline and language; the turn shows the outcome. */
async function askQuestion(repoId: string, question: string): Promise<void> {
  const { mode, conversationId, turns, language } = useChatStore.getState();
  const pipeline = chatSelectors.pipeline(useChatStore.getState());
  useChatStore.setState({ turns: [...turns, pendingTurn(question)], error: null, ...(pipeline ? { pipeline } : {}) });
  try {
    const started = await client().call('chat/ask', { repoId, question, ...(conversationId ? { conversationId } : {}), mode, ...(pipeline ? { pipeline } : {}), ...(language !== 'auto' ? { language } : {}) });
    const runId = started.run.runId;
    useChatStore.setState((s) => {
      // Still shown (a new conversation takes the id the engine gave it), or left meanwhile: its turn goes on in the background.
      if (s.conversationId === conversationId) return { conversationId: started.conversationId, turns: updateLast(s.turns, (t) => ({ ...t, runId })) };
      return { background: { ...s.background, [started.conversationId]: { ...pendingTurn(question), runId } } };
    });
    follow(runId, started.conversationId);
  } catch (error) {
    const e = toOpError(error);
    useChatStore.setState((s) => (s.conversationId === conversationId ? { turns: updateLast(s.turns, (t) => ({ ...t, status: e ? 'failed' : 'cancelled', error: e?.message ?? null })) } : {}));
  }
}

/** Named reads of the chat store. */
export const chatSelectors = {
  /** The pipeline the next question runs: the one chosen for the conversation, else the repository's default (null: not known yet, the engine decides). */
  pipeline: (s: ChatState): string | null => s.pipeline ?? s.pipelines?.defaultPipeline ?? null,
};
