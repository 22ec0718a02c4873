import { EmptyState } from '../../components/EmptyState';

/** Chat: cited, streamed answers about the code (built on the retrieval pipeline). */
export function ChatPage() {
  return (
    <EmptyState title="Chat">
      <p>Ask questions about your code and get streamed answers that cite files and lines, with the sources shown first.</p>
      <p>First add and index a repository on the Repositories page, then assign a chat model on the Models page.</p>
    </EmptyState>
  );
}

/** Plans & Runs: plan artifacts, solve runs and diff review. */
export function PlansPage() {
  return (
    <EmptyState title="Plans & Runs">
      <p>Plans list the files and changes a task needs; a solve run carries them out step by step, and every diff waits here for your review before it touches your working tree.</p>
      <p>First index a repository and assign models to the pipeline stages; plans you create will be listed here.</p>
    </EmptyState>
  );
}
