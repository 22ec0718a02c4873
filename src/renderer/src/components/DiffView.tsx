import { html, parse } from 'diff2html';
import 'diff2html/bundles/css/diff2html.min.css';
import { useMemo } from 'react';

/**
 * A unified diff rendered side by side by diff2html (bundled, no CDN). The HTML comes from
 * diff2html's renderer, which escapes the diff's content.
 */
export function DiffView(props: { diff: string; sideBySide?: boolean }) {
  const markup = useMemo(
    () => html(parse(props.diff), { outputFormat: props.sideBySide === false ? 'line-by-line' : 'side-by-side', drawFileList: false, matching: 'lines' }),
    [props.diff, props.sideBySide],
  );
  return <div className="diff-view" data-testid="diff-view" dangerouslySetInnerHTML={{ __html: markup }} />;
}
