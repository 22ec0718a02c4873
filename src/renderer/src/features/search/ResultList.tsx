import { useEffect, useRef } from 'react';
import type { SearchResult } from '../../../../shared/contract/search';
import { lineRange, openTarget, whyKind } from './reducers';
import { useSearchStore } from './store';

/** Results grouped by file: best symbols, matching lines and why each file is here. */
export function ResultList(props: { repoId: string; results: SearchResult[]; selected: number; openedPath: string | null }) {
  const { select, open, move, openSelected } = useSearchStore.getState();
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    const item = listRef.current?.querySelector<HTMLElement>(`[data-index="${props.selected}"]`);
    item?.scrollIntoView?.({ block: 'nearest' });
  }, [props.selected]);

  return (
    <ol
      ref={listRef}
      className="results"
      role="listbox"
      aria-label="Search results"
      tabIndex={0}
      onKeyDown={(event) => {
        if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
          event.preventDefault();
          move(event.key === 'ArrowDown' ? 1 : -1);
        } else if (event.key === 'Enter') {
          event.preventDefault();
          void openSelected();
        }
      }}
    >
      {props.results.map((result, index) => (
        <li
          key={result.path}
          role="option"
          data-index={index}
          data-testid="search-result"
          aria-selected={index === props.selected}
          className={['result', index === props.selected ? 'selected' : '', result.path === props.openedPath ? 'opened' : ''].join(' ')}
          onClick={() => {
            select(index);
            void open({ repoId: props.repoId, ...openTarget(result) });
          }}
        >
          <ResultHeader result={result} />
          {result.symbols.length > 0 ? (
            <ul className="result-symbols">
              {result.symbols.slice(0, 4).map((s) => (
                <li key={`${s.name}:${s.startLine}`}>
                  <button
                    type="button"
                    className="link-row"
                    onClick={(event) => {
                      event.stopPropagation();
                      select(index);
                      void open({ repoId: props.repoId, path: result.path, line: s.startLine, endLine: s.endLine });
                    }}
                  >
                    <span className="kind">{s.kind}</span> <span className="mono symbol-name">{s.name}</span>{' '}
                    <span className="muted mono">{lineRange(s.startLine, s.endLine)}</span>
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
          {result.lines.length > 0 ? (
            <ul className="result-lines">
              {result.lines.slice(0, 3).map((l) => (
                <li key={l.line}>
                  <button
                    type="button"
                    className="link-row mono"
                    onClick={(event) => {
                      event.stopPropagation();
                      select(index);
                      void open({ repoId: props.repoId, path: result.path, line: l.line });
                    }}
                  >
                    <span className="line-no">{l.line}</span>
                    <span className="line-text">{l.text}</span>
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

function ResultHeader(props: { result: SearchResult }) {
  const slash = props.result.path.lastIndexOf('/');
  return (
    <div className="result-head">
      <span className="mono result-path" title={props.result.path}>
        <span className="muted">{props.result.path.slice(0, slash + 1)}</span>
        {props.result.path.slice(slash + 1)}
      </span>
      <span className="why">
        {props.result.why.map((reason) => (
          <span key={reason} className={`badge why-${whyKind(reason)}`} title={reason}>
            {reason}
          </span>
        ))}
      </span>
    </div>
  );
}
