import { useState } from 'react';
import type { ConversationSummary } from '../../../../shared/contract/chat';
import { useChatStore } from './store';

/** Save a text as a file through the browser's download (Electron shows its save dialog). */
function download(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/markdown;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The repository's conversations, newest first; the one shown can be renamed, exported or deleted. */
export function ConversationList(props: { repoId: string }) {
  const conversations = useChatStore((s) => s.conversations);
  const current = useChatStore((s) => s.conversationId);
  const { open, newConversation } = useChatStore.getState();
  return (
    <nav className="chat-conversations" aria-label="Conversations">
      <button type="button" onClick={newConversation}>
        New conversation
      </button>
      {conversations.length === 0 ? <p className="muted">No conversations yet.</p> : null}
      <ul>
        {conversations.map((c) => (
          <li key={c.conversationId} className={c.conversationId === current ? 'current' : undefined} data-testid="chat-conversation">
            <button type="button" className="link chat-conversation-title" aria-current={c.conversationId === current} title={c.title} onClick={() => void open(props.repoId, c.conversationId)}>
              {c.title}
            </button>
            {c.conversationId === current ? <ConversationActions repoId={props.repoId} conversation={c} /> : null}
          </li>
        ))}
      </ul>
    </nav>
  );
}

function ConversationActions(props: { repoId: string; conversation: ConversationSummary }) {
  const { repoId, conversation } = props;
  const [editing, setEditing] = useState<'rename' | 'delete' | null>(null);
  const [title, setTitle] = useState(conversation.title);
  const { rename, remove, exportMarkdown } = useChatStore.getState();
  const isAnswering = useChatStore((s) => s.turns.some((t) => t.status === 'retrieving' || t.status === 'streaming'));
  if (editing === 'rename') {
    const save = () => {
      if (title.trim()) void rename(repoId, conversation.conversationId, title.trim());
      setEditing(null);
    };
    return (
      <form
        className="chat-conversation-edit"
        onSubmit={(e) => {
          e.preventDefault();
          save();
        }}
      >
        <input aria-label="Conversation title" value={title} maxLength={200} autoFocus onChange={(e) => setTitle(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && setEditing(null)} />
        <button type="submit" disabled={!title.trim()}>
          Save
        </button>
      </form>
    );
  }
  if (editing === 'delete') {
    return (
      <div className="chat-conversation-edit" role="group" aria-label="Confirm delete">
        <span>Delete {conversation.messages} messages?</span>
        <button type="button" className="danger" onClick={() => void remove(repoId, conversation.conversationId)}>
          Delete
        </button>
        <button type="button" onClick={() => setEditing(null)}>
          Keep
        </button>
      </div>
    );
  }
  return (
    <div className="chat-conversation-actions">
      <button
        type="button"
        className="link"
        onClick={() => {
          setTitle(conversation.title);
          setEditing('rename');
        }}
      >
        Rename
      </button>
      <button
        type="button"
        className="link"
        onClick={() =>
          void exportMarkdown(repoId, conversation.conversationId).then((exported) => {
            if (exported) download(exported.fileName, exported.markdown);
          })
        }
      >
        Export
      </button>
      <button type="button" className="link" disabled={isAnswering} title={isAnswering ? 'Stop the answer first' : undefined} onClick={() => setEditing('delete')}>
        Delete
      </button>
    </div>
  );
}
