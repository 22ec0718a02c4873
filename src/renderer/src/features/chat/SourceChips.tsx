import { useState } from 'react';
import { formatReasons, type ChatCitation, type ChatSource } from '../../../../shared/contract';
import { splitSources } from './sourceChips';

/**
 * A turn's sources as chips: the cited ones and the best search hits first, the rest behind
 * "+N more", with a legend for the chip styles. A click peeks at the lines.
 */
export function SourceChips(props: { sources: readonly ChatSource[]; citations: readonly ChatCitation[] | null; searchedNothing: boolean; onPeek(source: ChatSource): void }) {
  const [isExpanded, setExpanded] = useState(false);
  const { sources } = props;
  if (sources.length === 0) {
    return (
      <div className="chat-sources" data-testid="chat-sources" aria-label="Sources">
        <span className="muted">No sources{props.searchedNothing ? ' (answered without the repository)' : ''}.</span>
      </div>
    );
  }
  const { shown, more, cited } = splitSources(sources, props.citations);
  const chips = isExpanded ? sources : shown;
  return (
    <div className="chat-sources" data-testid="chat-sources" aria-label="Sources">
      {chips.map((s) => (
        <SourceChip key={`${s.path}:${s.startLine}`} source={s} isCited={cited.has(s)} onOpen={() => props.onPeek(s)} />
      ))}
      {more.length ? (
        <button type="button" className="link chat-sources-more" aria-expanded={isExpanded} onClick={() => setExpanded(!isExpanded)}>
          {isExpanded ? 'show fewer' : `+${more.length} more`}
        </button>
      ) : null}
      <details className="chat-sources-legend">
        <summary>What the chips mean</summary>
        <ul>
          <li>
            <span className="chat-chip seed">search hit</span> found by the search for the question
          </li>
          <li>
            <span className="chat-chip neighbour">related</span> reached from a search hit through imports and calls
          </li>
          <li>
            <span className="chat-chip seed excerpt">excerpt</span> a few lines around the match, not the whole body (the evidence budget was full)
          </li>
          <li>
            <span className="chat-chip seed cited">cited</span> the answer cites these lines; shown first
          </li>
        </ul>
        <p className="muted">
          Cited sources and the best search hits come first; all {sources.length}, with scores and reasons, are under “How this answer was made”.
        </p>
      </details>
    </div>
  );
}

function SourceChip(props: { source: ChatSource; isCited: boolean; onOpen(): void }) {
  const s = props.source;
  const kind = `${s.role === 'seed' ? 'search hit' : 'related'}${s.excerpt ? ', excerpt' : ''}${props.isCited ? ', cited' : ''}`;
  return (
    <button
      type="button"
      className={`chat-chip ${s.role}${s.excerpt ? ' excerpt' : ''}${props.isCited ? ' cited' : ''}`}
      title={`${kind} · ${formatReasons(s.why)} · score ${s.score}`}
      onClick={props.onOpen}
    >
      {s.path}:{s.startLine}-{s.endLine}
    </button>
  );
}
