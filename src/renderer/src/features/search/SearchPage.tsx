import { useEffect, useRef, type CSSProperties } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import { EmptyState } from '../../components/EmptyState';
import { reposSelectors, useReposStore } from '../repos/store';
import { FileView } from './FileView';
import { ResultList } from './ResultList';
import { SearchBox } from './SearchBox';
import { SearchNote } from './SearchNote';
import { Splitter, useResultsWidth } from './Splitter';
import { searchSelectors, useSearchStore } from './store';

/** Search: model-free code search over the current repository, and the file view of a result. */
export function SearchPage() {
  const repoId = useNavStore(navSelectors.repoId);
  const go = useNavStore((s) => s.go);
  const repo = useReposStore(reposSelectors.byId(repoId));
  const isLoaded = useReposStore(reposSelectors.isLoaded);
  const resultsFor = useSearchStore(searchSelectors.resultsFor);
  const opened = useSearchStore(searchSelectors.opened);
  const reset = useSearchStore((s) => s.reset);
  const splitRef = useRef<HTMLDivElement>(null);
  const [resultsWidth, setResultsWidth] = useResultsWidth();

  useEffect(() => {
    if (repoId && resultsFor && resultsFor.repoId !== repoId) reset();
    if (repoId && opened && opened.repoId !== repoId) reset();
  }, [repoId, resultsFor, opened, reset]);

  if (!repo) {
    return (
      <EmptyState
        title="Search"
        action={
          <button type="button" className="primary" onClick={() => go('repositories')}>
            Add a repository
          </button>
        }
      >
        <p>Search finds files, symbols and lines in the current repository, and says why each result is there.</p>
        <p>{isLoaded ? 'There is no repository yet: add one on the Repositories page, and search it as soon as parsing ends.' : 'Loading repositories…'}</p>
      </EmptyState>
    );
  }

  return (
    <div className="page search-page">
      <header className="page-header">
        <h1>Search</h1>
        <div className="grow">
          <SearchBox repoId={repo.id} />
        </div>
      </header>
      {repo.lastIndexedAt === null && repo.status !== 'failed' ? (
        <p className="muted">{repo.name} is being indexed; results appear as soon as parsing ends.</p>
      ) : null}
      <div className="search-split" ref={splitRef} style={{ '--results-width': `${resultsWidth}px` } as CSSProperties}>
        <ResultsPane repoId={repo.id} />
        <Splitter container={splitRef} width={resultsWidth} onChange={setResultsWidth} />
        <FilePane />
      </div>
    </div>
  );
}

function ResultsPane(props: { repoId: string }) {
  const { response, error, isSearching, selected, opened, query, mode } = useSearchStore(
    useShallow((s) => ({
      response: searchSelectors.response(s),
      error: searchSelectors.error(s),
      isSearching: searchSelectors.isSearching(s),
      selected: searchSelectors.selected(s),
      opened: searchSelectors.opened(s),
      query: searchSelectors.resultsFor(s)?.query ?? '',
      mode: searchSelectors.mode(s),
    })),
  );
  const { setMode, search } = useSearchStore.getState();
  let body;
  if (error) {
    body = (
      <p className="error-text" role="alert">
        {error.code === 'NOT_INDEXED' ? 'This repository has no index yet. Wait for indexing to finish, or re-index it on the Repositories page.' : error.message}
      </p>
    );
  } else if (!response) {
    body = <p className="muted">Type a function name, some words or a path. ↑/↓ select, Enter opens.</p>;
  } else if (response.results.length === 0) {
    body = (
      <div className="no-results" data-testid="no-results">
        <p>No results for “{query}”.</p>
        <p className="muted">Try other words or a symbol name{mode !== 'keyword' ? ', or keyword mode:' : '.'}</p>
        {mode !== 'keyword' ? (
          <button
            type="button"
            onClick={() => {
              setMode('keyword');
              void search(props.repoId);
            }}
          >
            Search in keyword mode
          </button>
        ) : null}
      </div>
    );
  } else {
    body = <ResultList repoId={props.repoId} query={query} results={response.results} terms={response.terms} selected={selected} openedPath={opened?.path ?? null} />;
  }
  return (
    <section className="results-pane" aria-label="Results" aria-busy={isSearching}>
      <div className="results-meta muted">
        {isSearching ? 'Searching…' : response ? `${response.results.length} files · ${response.mode} · ${Math.round(response.tookMs)} ms` : '\u00a0'}
      </div>
      <SearchNote response={isSearching ? null : response} />
      {body}
    </section>
  );
}

function FilePane() {
  const { file, opened, isLoading, error, terms } = useSearchStore(
    useShallow((s) => ({
      file: searchSelectors.file(s),
      opened: searchSelectors.opened(s),
      isLoading: searchSelectors.isFileLoading(s),
      error: searchSelectors.fileError(s),
      terms: searchSelectors.response(s)?.terms ?? NO_TERMS,
    })),
  );
  return (
    <div className="file-pane">
      {error ? (
        <p className="error-text" role="alert">
          Could not open {opened?.path}: {error.message}
        </p>
      ) : file && opened && file.path === opened.path ? (
        <FileView file={file} opened={opened} terms={terms} />
      ) : isLoading ? (
        <p className="muted">Opening {opened?.path}…</p>
      ) : (
        <p className="muted file-placeholder">Open a result to see the file, its outline, imports, co-changes and history.</p>
      )}
    </div>
  );
}

const NO_TERMS: string[] = [];
