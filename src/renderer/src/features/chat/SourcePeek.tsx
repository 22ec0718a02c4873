import { useEffect, useState } from 'react';
import type { RepoFileView } from '../../../../shared/contract/repos';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';

/** Lines a cited span where a peek opens. */
export interface PeekTarget {
  path: string;
  line: number;
  endLine: number;
}

/** Lines of context shown around the cited ones, and the most lines a peek shows. */
const CONTEXT_LINES = 3;
const MAX_LINES = 40;

/** The lines a peek shows: the cited span with a little context, cut at `MAX_LINES`. */
export function peekLines(content: string, target: PeekTarget): { first: number; lines: string[]; cut: boolean } {
  const all = content.split('\n');
  if (all.at(-1) === '') all.pop();
  const first = Math.max(1, target.line - CONTEXT_LINES);
  const last = Math.min(all.length, Math.max(target.line, target.endLine) + CONTEXT_LINES);
  const lines = all.slice(first - 1, Math.min(last, first - 1 + MAX_LINES));
  return { first, lines, cut: last - first + 1 > lines.length };
}

/**
 * A look at the cited lines without leaving Chat: the file's text around them (read with
 * repos/file), the cited lines marked, and a button that opens the whole file.
 */
export function SourcePeek(props: { repoId: string; target: PeekTarget; onOpenFile(): void; onClose(): void }) {
  const { repoId, target } = props;
  const [file, setFile] = useState<{ view: RepoFileView } | { error: OpError } | null>(null);
  useEffect(() => {
    let isCurrent = true;
    setFile(null);
    client()
      .call('repos/file', { repoId, path: target.path })
      .then((view) => isCurrent && setFile({ view }))
      .catch((error: unknown) => isCurrent && setFile({ error: toOpError(error) ?? { code: 'INTERNAL', message: String(error) } }));
    return () => {
      isCurrent = false;
    };
  }, [repoId, target.path]);
  const span = target.endLine > target.line ? `${target.line}-${target.endLine}` : String(target.line);
  return (
    <section className="chat-peek" role="region" aria-label={`Peek ${target.path}:${span}`} data-testid="chat-peek">
      <header className="chat-peek-header">
        <span className="mono">
          {target.path}:{span}
        </span>
        <span className="chat-peek-actions">
          <button type="button" onClick={props.onOpenFile}>
            Open file
          </button>
          <button type="button" className="link" aria-label="Close the peek" onClick={props.onClose}>
            Close
          </button>
        </span>
      </header>
      <PeekBody file={file} target={target} />
    </section>
  );
}

function PeekBody(props: { file: { view: RepoFileView } | { error: OpError } | null; target: PeekTarget }) {
  const { file, target } = props;
  if (!file) return <p className="muted">Reading the file…</p>;
  if ('error' in file) return <p className="error-text">{file.error.message}</p>;
  if (file.view.content === null) return <p className="muted">This file has no text to show (binary or unreadable).</p>;
  const { first, lines, cut } = peekLines(file.view.content, target);
  if (lines.length === 0) return <p className="muted">The file has {file.view.lines} lines now; the cited lines are past its end.</p>;
  return (
    <>
      <pre className="chat-peek-code">
        {lines.map((text, i) => {
          const n = first + i;
          const isCited = n >= target.line && n <= Math.max(target.line, target.endLine);
          return (
            <div key={n} className={isCited ? 'chat-peek-line cited' : 'chat-peek-line'}>
              <span className="chat-peek-num" aria-hidden="true">
                {n}
              </span>
              {text || ' '}
            </div>
          );
        })}
      </pre>
      {cut ? <p className="muted">More lines follow: open the file to see them all.</p> : null}
    </>
  );
}
