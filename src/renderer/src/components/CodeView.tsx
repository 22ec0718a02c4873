import Editor from '@monaco-editor/react';
import { useEffect, useRef } from 'react';
import type { editor } from 'monaco-editor/editor/editor.api';
import { configureMonaco, monacoLanguageOf } from '../lib/monaco';

configureMonaco();

/** A read-only Monaco view of a file, scrolled to and highlighting `line` (1-based) when given. */
export function CodeView(props: { path: string; content: string; line?: number; endLine?: number }) {
  const editorRef = useRef<editor.IStandaloneCodeEditor | null>(null);
  const dark = typeof window !== 'undefined' && window.matchMedia?.('(prefers-color-scheme: dark)').matches;

  useEffect(() => {
    const view = editorRef.current;
    if (view && props.line) reveal(view, props.line, props.endLine);
  }, [props.line, props.endLine, props.path]);

  return (
    <div className="code-view" data-testid="code-view" data-path={props.path}>
      <Editor
        height="100%"
        path={props.path}
        value={props.content}
        language={monacoLanguageOf(props.path)}
        theme={dark ? 'vs-dark' : 'vs'}
        options={{ readOnly: true, domReadOnly: true, minimap: { enabled: false }, scrollBeyondLastLine: false, fontSize: 12, renderLineHighlight: 'line', automaticLayout: true }}
        onMount={(view) => {
          editorRef.current = view;
          if (props.line) reveal(view, props.line, props.endLine);
        }}
      />
    </div>
  );
}

function reveal(view: editor.IStandaloneCodeEditor, line: number, endLine?: number): void {
  const last = endLine ?? line;
  const endColumn = view.getModel()?.getLineMaxColumn(last) ?? 1;
  view.revealLineInCenter(line);
  view.setSelection({ startLineNumber: line, startColumn: 1, endLineNumber: last, endColumn });
}
