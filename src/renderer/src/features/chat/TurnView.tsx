import { useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { answerHtml } from './answerMarkdown';
import { highlightCodeBlocks } from './highlightCode';
import type { Turn } from './reducers';
import { SourceChips } from './SourceChips';
import { SourcePeek, type PeekTarget } from './SourcePeek';
import { TracePanel } from './TracePanel';

/** Opens a file of the repository at the lines (a peek in the turn, or the whole file). */
export type OpenAt = (path: string, line: number, endLine: number) => void;

/**
 * One question with its sources, the streamed answer and how it was made. A source or citation
 * opens a peek at its lines below the answer; the peek opens the whole file with `openFile`.
 * `onRetry` is given to the conversation's last turn when its answer failed or was stopped.
 */
export function TurnView(props: { turn: Turn; repoId: string; openFile: OpenAt; onRetry?: () => void }) {
  const { turn } = props;
  const [peek, setPeek] = useState<PeekTarget | null>(null);
  const openAt: OpenAt = (path, line, endLine) => setPeek({ path, line, endLine });
  return (
    <article className="chat-turn" data-testid="chat-turn">
      <p className="chat-question">{turn.question}</p>
      {turn.sources === null ? (
        <p className="muted">Finding sources…</p>
      ) : (
        <SourceChips sources={turn.sources} citations={turn.citations} searchedNothing={turn.trace?.searchMode === 'none'} onPeek={(s) => openAt(s.path, s.startLine, s.endLine)} />
      )}
      <div className={turn.status === 'streaming' ? 'chat-answer streaming' : 'chat-answer'} data-testid="chat-answer" aria-live="polite">
        <AnswerView turn={turn} openAt={openAt} />
        {turn.status === 'streaming' && !turn.answer ? <span className="chat-cursor" aria-hidden="true" /> : null}
      </div>
      {peek ? <SourcePeek repoId={props.repoId} target={peek} onOpenFile={() => props.openFile(peek.path, peek.line, peek.endLine)} onClose={() => setPeek(null)} /> : null}
      {turn.status === 'failed' || turn.status === 'cancelled' ? (
        <p className={turn.status === 'failed' ? 'error-text chat-turn-end' : 'muted chat-turn-end'} role={turn.status === 'failed' ? 'alert' : undefined}>
          {turn.status === 'cancelled' ? 'Stopped.' : `The answer failed: ${turn.error ?? 'unknown error'}`}
          {props.onRetry ? (
            <button type="button" onClick={props.onRetry} title="Ask the same question again in this conversation">
              Retry
            </button>
          ) : null}
        </p>
      ) : null}
      {turn.trace ? <TracePanel turn={turn} openAt={openAt} /> : null}
    </article>
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
