import { useEffect, useRef } from 'react';
import type { SearchMode } from '../../../../shared/contract/search';
import { searchSelectors, useSearchStore } from './store';

const MODES: Array<{ value: SearchMode; label: string; title: string }> = [
  { value: 'auto', label: 'Auto', title: 'Keyword search (measured better than hybrid with the built-in embedder; pick Hybrid or Semantic to use vectors)' },
  { value: 'keyword', label: 'Keyword', title: 'Matching words in code and paths, plus imports and co-changes' },
  { value: 'semantic', label: 'Semantic', title: 'Vector similarity only (needs embeddings)' },
  { value: 'hybrid', label: 'Hybrid', title: 'Keyword and vector results fused, plus graph signals' },
];

/** Debounce of search-as-you-type, in milliseconds. */
const TYPE_DELAY_MS = 250;

/**
 * The one search box: results follow typing after a short pause; Enter searches at once, or opens
 * the selected result when the results already belong to what is typed; ↑/↓ move the selection.
 */
export function SearchBox(props: { repoId: string }) {
  const query = useSearchStore(searchSelectors.query);
  const mode = useSearchStore(searchSelectors.mode);
  const resultsFor = useSearchStore(searchSelectors.resultsFor);
  const { setQuery, setMode, search, move, openSelected } = useSearchStore.getState();
  const inputRef = useRef<HTMLInputElement>(null);
  const isFresh = resultsFor?.query === query && resultsFor.repoId === props.repoId;

  useEffect(() => inputRef.current?.focus(), []);
  useEffect(() => {
    if (isFresh) return;
    const timer = setTimeout(() => void search(props.repoId), TYPE_DELAY_MS);
    return () => clearTimeout(timer);
    // Search again whenever the text, the mode or the repository changes.
  }, [query, mode, props.repoId, isFresh, search]);

  return (
    <form
      className="search-box"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        if (isFresh) void openSelected();
        else void search(props.repoId);
      }}
    >
      <input
        ref={inputRef}
        className="grow"
        type="search"
        aria-label="Search query"
        placeholder="Search code: a name, words, a path…"
        value={query}
        spellCheck={false}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            move(event.key === 'ArrowDown' ? 1 : -1);
          }
        }}
      />
      <select
        aria-label="Search mode"
        value={mode}
        onChange={(event) => {
          setMode(event.target.value as SearchMode);
          void search(props.repoId);
        }}
      >
        {MODES.map((m) => (
          <option key={m.value} value={m.value} title={m.title}>
            {m.label}
          </option>
        ))}
      </select>
    </form>
  );
}
