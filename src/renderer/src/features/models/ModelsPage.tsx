import { EmptyState } from '../../components/EmptyState';

/** Models: installed models, pulls and the assignment of a model to each stage. */
export function ModelsPage() {
  return (
    <EmptyState title="Models">
      <p>Your local models appear here, with a model assigned to each pipeline stage.</p>
      <p>Install Ollama to download models.</p>
    </EmptyState>
  );
}
