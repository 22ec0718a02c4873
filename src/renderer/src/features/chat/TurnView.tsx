import { useEffect, useMemo, useRef, type MouseEvent } from 'react';
import { formatReasons, type ChatSource } from '../../../../shared/contract';
import { answerHtml } from './answerMarkdown';
import { highlightCodeBlocks } from './highlightCode';
import type { Turn } from './reducers';
import { TracePanel } from './TracePanel';

/** Opens a file of the repository in the file view at the lines. */
export type OpenAt = (path: string, line: number, endLine: number) => void;

/** One question with its sources, the streamed answer and how it was made. */
export function TurnView(props: { turn: Turn; openAt: OpenAt }) {
  const { turn, openAt } = props;
  return (
    <article className="chat-turn" data-testid="chat-turn">
      <p className="chat-question">{turn.question}</p>
      {turn.sources === null ? (
        <p className="muted">Finding sources…</p>
      ) : (
        <div className="chat-sources" data-testid="chat-sources" aria-label="Sources">
          {turn.sources.length === 0 ? <span className="muted">No sources{turn.trace?.searchMode === 'none' ? ' (answered without the repository)' : ''}.</span> : null}
          {turn.sources.map((s) => (
            <SourceChip key={`${s.path}:${s.startLine}`} source={s} onOpen={() => openAt(s.path, s.startLine, s.endLine)} />
          ))}
        </div>
      )}
      <div className={turn.status === 'streaming' ? 'chat-answer streaming' : 'chat-answer'} data-testid="chat-answer" aria-live="polite">
        <AnswerView turn={turn} openAt={openAt} />
        {turn.status === 'streaming' && !turn.answer ? <span className="chat-cursor" aria-hidden="true" /> : null}
      </div>
      {turn.status === 'failed' || turn.status === 'cancelled' ? (
        <p className={turn.status === 'failed' ? 'error-text' : 'muted'} role={turn.status === 'failed' ? 'alert' : undefined}>
          {turn.status === 'cancelled' ? 'Stopped.' : `The answer failed: ${turn.error ?? 'unknown error'}`}
        </p>
      ) : null}
      {turn.trace ? <TracePanel turn={turn} openAt={openAt} /> : null}
    </article>
  );
}

function SourceChip(props: { source: ChatSource; onOpen(): void }) {
  const s = props.source;
  return (
    <button type="button" className={`chat-chip ${s.role}${s.excerpt ? ' excerpt' : ''}`} title={`${formatReasons(s.why)} · score ${s.score}${s.excerpt ? ' · excerpt' : ''}`} onClick={props.onOpen}>
      {s.path}:{s.startLine}-{s.endLine}
    </button>
  );
}

/**
 * The answer rendered as sanitized markdown; a click on a citation button opens the file at its
 * lines, a click on another link opens it outside the app (never navigating the app's window).
 */
function AnswerView(props: { turn: Turn; openAt: OpenAt }) {
  const { turn } = props;
  const html = useMemo(
    () => answerHtml(turn.answer, { citations: turn.citations, sources: turn.sources, isStreaming: turn.status === 'streaming' || turn.status === 'retrieving' }),
    [turn.answer, turn.citations, turn.sources, turn.status],
  );
  const root = useRef<HTMLDivElement>(null);
  const isFinished = turn.status !== 'streaming' && turn.status !== 'retrieving';
  useEffect(() => {
    // Colour code blocks once the text stops changing (a streaming answer re-renders per token).
    if (isFinished && root.current) void highlightCodeBlocks(root.current);
  }, [html, isFinished]);
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    const target = e.target as HTMLElement;
    const cite = target.closest<HTMLElement>('button.chat-citation');
    if (cite?.dataset.path) {
      props.openAt(cite.dataset.path, Number(cite.dataset.line), Number(cite.dataset.endLine ?? cite.dataset.line));
      return;
    }
    const link = target.closest<HTMLAnchorElement>('a[href]');
    if (link) {
      e.preventDefault();
      window.open(link.href, '_blank', 'noopener');
    }
  };
  // The HTML comes from answerHtml, which sanitizes it with DOMPurify.
  return <div ref={root} className="chat-answer-text" onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />;
}
