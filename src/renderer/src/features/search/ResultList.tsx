import { useEffect, useRef } from 'react';
import { formatReason, formatReasons, reasonKey } from '../../../../shared/contract/reasons';
import type { SearchResult } from '../../../../shared/contract/search';
import { highlightParts, lineRange, openTarget, rowSymbol, snippetOf } from './reducers';
import { useSearchStore } from './store';

/**
 * Results, one dense row each: the path with the symbol around the best line and its line range,
 * the reasons as one compact line, and the best matching line with the query terms highlighted.
 */
export function ResultList(props: { repoId: string; query: string; results: SearchResult[]; terms: string[]; selected: number; openedPath: string | null }) {
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
            void open({ repoId: props.repoId, ...openTarget(result, props.query) });
          }}
        >
          <ResultRow result={result} terms={props.terms} />
        </li>
      ))}
    </ol>
  );
}

function ResultRow(props: { result: SearchResult; terms: string[] }) {
  const { result } = props;
  const slash = result.path.lastIndexOf('/');
  const symbol = rowSymbol(result);
  const snippet = snippetOf(result);
  return (
    <>
      <div className="result-head">
        <span className="mono result-path" title={result.path}>
          <span className="result-dir">{result.path.slice(0, slash + 1)}</span>
          <span className="result-name">{result.path.slice(slash + 1)}</span>
        </span>
        {symbol ? (
          <span className="result-symbol mono" title={`${symbol.kind} ${symbol.name}, lines ${lineRange(symbol.startLine, symbol.endLine)}`}>
            <span className="symbol-name">{symbol.name}</span>
            <span className="result-range">{lineRange(symbol.startLine, symbol.endLine)}</span>
          </span>
        ) : null}
      </div>
      {result.why.length > 0 ? (
        <div className="result-reasons" title={formatReasons(result.why)}>
          {result.why.map((reason) => (
            <span key={reasonKey(reason)} className={`reason reason-${reason.kind}`} data-kind={reason.kind}>
              {formatReason(reason, { compact: true })}
            </span>
          ))}
        </div>
      ) : null}
      {snippet ? (
        <div className="result-snippet mono">
          <span className="line-no">{snippet.line}</span>
          <span className="line-text">
            {highlightParts(snippet.text, props.terms).map((part, i) =>
              part.hit ? (
                <mark key={i} className="term-hit">
                  {part.text}
                </mark>
              ) : (
                part.text
              ),
            )}
          </span>
        </div>
      ) : null}
    </>
  );
}
