import type { ReactNode } from 'react';
import type { RepoFileView } from '../../../../shared/contract';
import { CodeView } from '../../components/CodeView';
import { lineRange, outlineTree, symbolAt } from './reducers';
import { useSearchStore, type OpenedFile } from './store';

/**
 * A file of the index: read-only Monaco at the line with the query terms highlighted, and beside it
 * (below it in a narrow pane) the outline, neighbours, commits and tests.
 */
export function FileView(props: { file: RepoFileView; opened: OpenedFile; terms?: string[] }) {
  const { file, opened } = props;
  return (
    <section className="file-view" aria-label={`File ${file.path}`} data-testid="file-view">
      <header className="file-head">
        <span className="mono file-path">{file.path}</span>
        <span className="muted">
          {file.language} · {file.lines.toLocaleString()} lines
          {file.isTest ? ' · test' : ''}
          {file.contentTruncated ? ' · shown in part (large file)' : ''}
        </span>
      </header>
      <div className="file-body">
        <div className="file-code">
          {file.content !== null ? (
            <CodeView path={file.path} content={file.content} line={opened.line} endLine={opened.endLine} highlight={props.terms} />
          ) : (
            <p className="muted">No text to show{file.skipReason ? ` (${file.skipReason} file)` : ''}.</p>
          )}
        </div>
        <FileSidebar file={file} line={opened.line} />
      </div>
    </section>
  );
}

function FileSidebar(props: { file: RepoFileView; line?: number }) {
  const { file } = props;
  const open = useSearchStore((s) => s.open);
  const openFile = (path: string) => void open({ repoId: file.repoId, path });
  const current = props.line ? symbolAt(file.symbols, props.line) : null;
  return (
    <aside className="file-side" aria-label="File details">
      <SideSection title="Outline" count={file.symbols.length} empty="No symbols in this file.">
        <ul className="outline" aria-label="Outline">
          {outlineTree(file.symbols).map(({ symbol, depth }) => (
            <li key={symbol.id} style={{ paddingLeft: depth * 12 }}>
              <button
                type="button"
                className={symbol.id === current?.id ? 'link-row current' : 'link-row'}
                title={symbol.signature || symbol.qualifiedName}
                onClick={() => void open({ repoId: file.repoId, path: file.path, line: symbol.startLine, endLine: symbol.endLine })}
              >
                <span className="kind">{symbol.kind}</span> <span className="mono symbol-name">{symbol.name}</span>{' '}
                <span className="muted mono">{lineRange(symbol.startLine, symbol.endLine)}</span>
              </button>
            </li>
          ))}
        </ul>
      </SideSection>
      <PathSection title="Imports" paths={file.imports} empty="Imports no repository file." onOpen={openFile} />
      <PathSection title="Imported by" paths={file.importedBy} empty="No repository file imports it." onOpen={openFile} />
      <SideSection title="Changes together with" count={file.coChanges.length} empty="No co-change history.">
        <ul aria-label="Changes together with">
          {file.coChanges.map((c) => (
            <li key={c.path}>
              <button type="button" className="link-row mono" onClick={() => openFile(c.path)}>
                {c.path} <span className="muted">×{c.count}</span>
              </button>
            </li>
          ))}
        </ul>
      </SideSection>
      <PathSection title={file.isTest ? 'Tests code in' : 'Tests'} paths={file.tests} empty="No linked tests." onOpen={openFile} />
      <SideSection title="Recent commits" count={file.commits.length} empty="Not in git history.">
        <ul className="commits" aria-label="Recent commits">
          {file.commits.map((c) => (
            <li key={c.sha} title={`${c.sha}\n${c.author}, ${c.date}`}>
              <span className="mono muted">{c.sha.slice(0, 7)}</span> {c.message.split('\n')[0]}
              <div className="muted commit-meta">
                {c.author} · {c.date.slice(0, 10)}
              </div>
            </li>
          ))}
        </ul>
      </SideSection>
    </aside>
  );
}

function PathSection(props: { title: string; paths: string[]; empty: string; onOpen(path: string): void }) {
  return (
    <SideSection title={props.title} count={props.paths.length} empty={props.empty}>
      <ul aria-label={props.title}>
        {props.paths.map((path) => (
          <li key={path}>
            <button type="button" className="link-row mono" onClick={() => props.onOpen(path)}>
              {path}
            </button>
          </li>
        ))}
      </ul>
    </SideSection>
  );
}

function SideSection(props: { title: string; count: number; empty: string; children: ReactNode }) {
  return (
    <section className="side-section">
      <h3>
        {props.title} <span className="muted">{props.count}</span>
      </h3>
      {props.count === 0 ? <p className="muted">{props.empty}</p> : props.children}
    </section>
  );
}
