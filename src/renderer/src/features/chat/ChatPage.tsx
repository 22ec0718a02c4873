import { useEffect, useRef } from 'react';
import { isInDialog } from '../../app/shortcuts';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import { EmptyState } from '../../components/EmptyState';
import { SetupModels } from '../models/SetupModels';
import { useModelsStore } from '../models/store';
import { reposSelectors, useReposStore } from '../repos/store';
import { useSearchStore } from '../search/store';
import { ChatOptions } from './ChatOptions';
import { ConversationList } from './ConversationList';
import { useChatStore } from './store';
import { TurnView } from './TurnView';
import './chat.css';

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
        <span className="muted">
          {repo.name} · <ModelsInUse />
        </span>
      </header>
      <div className="chat-split">
        <ConversationList repoId={repo.id} />
        <Conversation repoId={repo.id} />
      </div>
    </div>
  );
}

function Conversation(props: { repoId: string }) {
  const turns = useChatStore((s) => s.turns);
  const draft = useChatStore((s) => s.draft);
  const error = useChatStore((s) => s.error);
  const { setDraft, ask, stop, retry } = useChatStore.getState();
  const busy = turns.some((t) => t.status === 'retrieving' || t.status === 'streaming');
  const end = useRef<HTMLDivElement>(null);
  const openFile = useOpenAt(props.repoId);
  const last = turns.at(-1);
  // No working chat model: the setup is offered here, and a question waits for it.
  const noModel = useModelsStore((s) => s.setupPlan?.missingStages.includes('chat') ?? false);
  const planned = useModelsStore((s) => s.setupPlan);
  useEffect(() => {
    if (planned && !noModel) void useChatStore.getState().load(props.repoId);
  }, [planned, noModel, props.repoId]);
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [turns.length, last?.answer.length]);
  useEffect(() => {
    if (!busy) return;
    // Esc stops the answer being written (not while a dialog, such as the palette, takes the key).
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented || isInDialog(event.target)) return;
      event.preventDefault();
      void stop();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [busy, stop]);
  return (
    <section className="chat-conversation" aria-label="Conversation">
      <div className="chat-turns">
        {turns.length === 0 ? <p className="muted">Ask where something is, how it works, or what a change would affect. Sources appear first, then the answer.</p> : null}
        {turns.map((turn, i) => (
          <TurnView
            key={i}
            turn={turn}
            repoId={props.repoId}
            openFile={openFile}
            onRetry={i === turns.length - 1 && (turn.status === 'failed' || turn.status === 'cancelled') ? () => void retry(props.repoId) : undefined}
          />
        ))}
        <div ref={end} />
      </div>
      {error ? (
        <p className="error-text" role="alert">
          {error.message}
        </p>
      ) : null}
      <SetupModels stages={['chat']} title="Set up models to chat" />
      <ChatOptions repoId={props.repoId} />
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
              if (!noModel) void ask(props.repoId);
            }
          }}
        />
        {busy ? (
          <button type="button" onClick={() => void stop()} title="Stop the answer (Esc)">
            Stop
          </button>
        ) : (
          <button type="submit" className="primary" disabled={!draft.trim() || noModel} title={noModel ? 'Set up a model first (above)' : undefined}>
            Ask
          </button>
        )}
      </form>
    </section>
  );
}

/** The models a turn uses, from the assignment table (the Models page changes them). */
function ModelsInUse() {
  const models = useChatStore((s) => s.models);
  const go = useNavStore((s) => s.go);
  if (!models) return <>answers use the model assigned to the chat stage</>;
  return (
    <span data-testid="chat-models">
      answers: <span className="mono">{models.chat ?? 'none assigned'}</span> · routing: <span className="mono">{models.routing ?? 'none assigned'}</span> ·{' '}
      <button type="button" className="link" onClick={() => go('models')}>
        change
      </button>
    </span>
  );
}
