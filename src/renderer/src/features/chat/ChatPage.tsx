import { useEffect, useRef } from 'react';
import { citationParts, formatReasons, type ChatCitation, type ChatSource } from '../../../../shared/contract';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import { EmptyState } from '../../components/EmptyState';
import { reposSelectors, useReposStore } from '../repos/store';
import { useSearchStore } from '../search/store';
import type { Turn } from './reducers';
import { useChatStore } from './store';

/** Open a file of the current repository in the Search page's file view, at the lines. */
function useOpenAt(repoId: string) {
  const go = useNavStore((s) => s.go);
  return (path: string, line: number, endLine: number) => {
    void useSearchStore.getState().open({ repoId, path, line, endLine });
    go('search');
  };
}

/** Chat: ask about the current repository; sources first, the answer streaming in, citations as links. */
export function ChatPage() {
  const repoId = useNavStore(navSelectors.repoId);
  const go = useNavStore((s) => s.go);
  const repo = useReposStore(reposSelectors.byId(repoId));
  const isLoaded = useReposStore(reposSelectors.isLoaded);
  const { load, listen } = useChatStore.getState();

  useEffect(() => {
    const stop = listen();
    return () => stop();
  }, [listen]);
  useEffect(() => {
    if (repo) void load(repo.id);
  }, [repo, load]);

  if (!repo) {
    return (
      <EmptyState
        title="Chat"
        action={
          <button type="button" className="primary" onClick={() => go('repositories')}>
            Add a repository
          </button>
        }
      >
        <p>Ask questions about the current repository; answers cite files and lines, with the sources shown first.</p>
        <p>{isLoaded ? 'There is no repository yet: add one on the Repositories page.' : 'Loading repositories…'}</p>
      </EmptyState>
    );
  }
  return (
    <div className="page chat-page">
      <header className="page-header">
        <h1>Chat</h1>
        <span className="muted">{repo.name} · answers use the model assigned to the chat stage (Models page)</span>
      </header>
      <div className="chat-split">
        <ConversationList repoId={repo.id} />
        <Conversation repoId={repo.id} />
      </div>
    </div>
  );
}

function ConversationList(props: { repoId: string }) {
  const conversations = useChatStore((s) => s.conversations);
  const current = useChatStore((s) => s.conversationId);
  const { open, newConversation } = useChatStore.getState();
  return (
    <nav className="chat-conversations" aria-label="Conversations">
      <button type="button" onClick={newConversation}>
        New conversation
      </button>
      <ul>
        {conversations.map((c) => (
          <li key={c.conversationId}>
            <button type="button" className={c.conversationId === current ? 'link current' : 'link'} aria-current={c.conversationId === current} title={c.title} onClick={() => void open(props.repoId, c.conversationId)}>
              {c.title}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Conversation(props: { repoId: string }) {
  const turns = useChatStore((s) => s.turns);
  const draft = useChatStore((s) => s.draft);
  const mode = useChatStore((s) => s.mode);
  const error = useChatStore((s) => s.error);
  const { setDraft, setMode, ask, stop } = useChatStore.getState();
  const busy = turns.some((t) => t.status === 'retrieving' || t.status === 'streaming');
  const end = useRef<HTMLDivElement>(null);
  const last = turns.at(-1);
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [turns.length, last?.answer.length]);
  return (
    <section className="chat-conversation" aria-label="Conversation">
      <div className="chat-turns">
        {turns.length === 0 ? <p className="muted">Ask where something is, how it works, or what a change would affect. Sources appear first, then the answer.</p> : null}
        {turns.map((turn, i) => (
          <TurnView key={i} repoId={props.repoId} turn={turn} />
        ))}
        <div ref={end} />
      </div>
      {error ? (
        <p className="error-text" role="alert">
          {error.message}
        </p>
      ) : null}
      <form
        className="chat-ask"
        onSubmit={(e) => {
          e.preventDefault();
          void ask(props.repoId);
        }}
      >
        <textarea
          aria-label="Question"
          value={draft}
          rows={2}
          placeholder="Ask about this repository (Enter sends, Shift+Enter a new line)"
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              void ask(props.repoId);
            }
          }}
        />
        <label>
          Mode{' '}
          <select aria-label="Retrieval mode" value={mode} onChange={(e) => setMode(e.target.value as typeof mode)}>
            <option value="auto">auto (router)</option>
            <option value="bm25">keyword</option>
            <option value="semantic">semantic</option>
            <option value="hybrid">hybrid</option>
          </select>
        </label>
        {busy ? (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button type="submit" className="primary" disabled={!draft.trim()}>
            Ask
          </button>
        )}
      </form>
    </section>
  );
}

function TurnView(props: { repoId: string; turn: Turn }) {
  const { turn } = props;
  const openAt = useOpenAt(props.repoId);
  return (
    <article className="chat-turn" data-testid="chat-turn">
      <p className="chat-question">{turn.question}</p>
      {turn.sources === null ? (
        <p className="muted">Finding sources…</p>
      ) : (
        <div className="chat-sources" data-testid="chat-sources" aria-label="Sources">
          {turn.sources.length === 0 ? <span className="muted">No sources{turn.trace?.searchMode === 'none' ? ' (answered without the repository)' : ''}.</span> : null}
          {turn.sources.map((s) => (
            <SourceChip key={`${s.path}:${s.startLine}`} source={s} onOpen={() => openAt(s.path, s.startLine, s.endLine)} />
          ))}
        </div>
      )}
      {turn.trace ? <TraceLine turn={turn} /> : null}
      <div className="chat-answer" data-testid="chat-answer" aria-live="polite">
        <AnswerText turn={turn} openAt={openAt} />
        {turn.status === 'streaming' ? <span className="chat-cursor" aria-hidden="true" /> : null}
      </div>
      {turn.status === 'failed' || turn.status === 'cancelled' ? (
        <p className={turn.status === 'failed' ? 'error-text' : 'muted'} role={turn.status === 'failed' ? 'alert' : undefined}>
          {turn.status === 'cancelled' ? 'Stopped.' : `The answer failed: ${turn.error ?? 'unknown error'}`}
        </p>
      ) : null}
    </article>
  );
}

function SourceChip(props: { source: ChatSource; onOpen(): void }) {
  const s = props.source;
  return (
    <button type="button" className={`chat-chip ${s.role}`} title={`${formatReasons(s.why)} · score ${s.score}`} onClick={props.onOpen}>
      {s.path}:{s.startLine}-{s.endLine}
    </button>
  );
}

function TraceLine(props: { turn: Turn }) {
  const trace = props.turn.trace!;
  const route = trace.route;
  return (
    <details className="chat-trace muted">
      <summary>
        {route.mode} · {trace.intent.toLowerCase()} · {trace.searchMode}
        {route.source === 'fallback' ? ' · router fell back' : ''}
      </summary>
      <ul>
        <li>
          Route: {route.mode} “{route.query}” ({route.source}
          {route.reason ? `: ${route.reason}` : ''}
          {route.thinking ? '; thinking removed' : ''})
        </li>
        <li>
          Graph: {trace.expansion.seeds} seeds, {trace.expansion.added} neighbours (depth {trace.expansion.depth}, decay {trace.expansion.decay})
        </li>
        <li>
          Evidence: {trace.evidenceTokens} of {trace.budgetTokens} tokens
        </li>
        {trace.notes.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
    </details>
  );
}

/** The answer with its citations: links while they point at a source or an indexed file; flagged when unverified. */
function AnswerText(props: { turn: Turn; openAt(path: string, line: number, endLine: number): void }) {
  const { turn } = props;
  const checked = new Map((turn.citations ?? []).map((c) => [c.text, c] as const));
  return (
    <p className="chat-answer-text">
      {citationParts(turn.answer).map((part, i) => {
        if (typeof part === 'string') return <span key={i}>{part}</span>;
        const status: ChatCitation['status'] | undefined = checked.get(part.text)?.status ?? (turn.sources?.some((s) => s.path === part.path) ? 'source' : undefined);
        if (status === 'unverified' || (status === undefined && turn.status !== 'streaming')) {
          return (
            <span key={i} className="chat-citation unverified" title="Not in the index: the model cited a file or lines that do not exist">
              {part.text}
            </span>
          );
        }
        return (
          <button key={i} type="button" className="link chat-citation" title={`Open ${part.path} at line ${part.startLine}`} onClick={() => props.openAt(part.path, part.startLine, part.endLine)}>
            {part.text}
          </button>
        );
      })}
    </p>
  );
}
