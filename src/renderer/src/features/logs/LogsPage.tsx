import { EmptyState } from '../../components/EmptyState';

/** Logs: every model call and decision. */
export function LogsPage() {
  return (
    <EmptyState title="Logs">
      <p>Every model call the app makes is recorded here: prompt, response, tokens and latency.</p>
      <p>Nothing has called a model yet.</p>
    </EmptyState>
  );
}
