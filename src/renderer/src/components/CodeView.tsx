import Editor from '@monaco-editor/react';
import { useEffect, useRef, useState } from 'react';
import type { editor } from 'monaco-editor/editor/editor.api';
import { configureMonaco, monacoLanguageOf } from '../lib/monaco';

configureMonaco();

/** Occurrences marked at most, so a common term in a large file stays cheap. */
const MAX_HIGHLIGHTS = 2000;

/**
 * A read-only Monaco view of a file, scrolled to and highlighting `line` (1-based) when given;
 * `highlight` words (case-insensitive, two characters or more) are marked wherever they occur.
 */
export function CodeView(props: { path: string; content: string; line?: number; endLine?: number; highlight?: readonly string[] }) {
  const editorRef = useRef<editor.IStandaloneCodeEditor | null>(null);
  const decorations = useRef<editor.IEditorDecorationsCollection | null>(null);
  const [mounted, setMounted] = useState(false);
  const words = (props.highlight ?? []).join('\n');

  useEffect(() => {
    const view = editorRef.current;
    if (!view) return;
    decorations.current ??= view.createDecorationsCollection();
    decorations.current.set(highlightDecorations(view, words ? words.split('\n') : []));
  }, [mounted, words, props.path, props.content]);
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
          setMounted(true);
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

function highlightDecorations(view: editor.IStandaloneCodeEditor, words: readonly string[]): editor.IModelDeltaDecoration[] {
  const model = view.getModel();
  const usable = [...new Set(words.filter((w) => w.length >= 2))].sort((a, b) => b.length - a.length);
  if (!model || usable.length === 0) return [];
  const pattern = usable.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return model.findMatches(pattern, false, true, false, null, false, MAX_HIGHLIGHTS).map((match) => ({
    range: match.range,
    options: { inlineClassName: 'term-hit', stickiness: 1 },
  }));
}
