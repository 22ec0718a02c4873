import type { SearchResponse } from '../../../../shared/contract/search';

/**
 * The engine's one-line note under the result count, when the results are weaker than the mode
 * promises: no or partial vectors, or hybrid that fell back to keyword.
 */
export function SearchNote(props: { response: SearchResponse | null }) {
  const note = props.response?.note;
  if (!note) return null;
  return (
    <p className="search-note" role="note" data-testid="search-note">
      {note}
    </p>
  );
}
