import { EmptyState } from '../../components/EmptyState';

/** Search: model-free code search over the current repository. */
export function SearchPage() {
  return (
    <EmptyState title="Search">
      <p>Search finds files, symbols and lines in the current repository, and says why each result is there.</p>
      <p>Index a repository first, on the Repositories page.</p>
    </EmptyState>
  );
}
