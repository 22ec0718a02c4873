import { EmptyState } from '../../components/EmptyState';

/** Repositories: the list of indexed repositories. */
export function ReposPage() {
  return (
    <EmptyState title="Repositories">
      <p>Repositories you add are indexed here: symbols, imports and git co-change history, ready for search, chat and tasks.</p>
      <p>Add a repository to start.</p>
    </EmptyState>
  );
}
