import { html, parse } from 'diff2html';
import 'diff2html/bundles/css/diff2html.min.css';
import type { ColorSchemeType } from 'diff2html/lib/types';
import { useEffect, useMemo, useState } from 'react';
import './diffView.css';

/** Below this width (px) a side-by-side diff leaves too few characters per side: diffs go line by line. */
export const SIDE_BY_SIDE_MIN_WIDTH = 900;

/**
 * A unified diff rendered by diff2html (bundled, no CDN), side by side or line by line, in the
 * app's palette for the system's light or dark scheme (diffView.css). The HTML comes from
 * diff2html's renderer, which escapes the diff's content.
 */
export function DiffView(props: { diff: string; sideBySide?: boolean }) {
  const markup = useMemo(
    () =>
      html(parse(props.diff), {
        outputFormat: props.sideBySide === false ? 'line-by-line' : 'side-by-side',
        drawFileList: false,
        matching: 'lines',
        colorScheme: 'auto' as ColorSchemeType,
      }),
    [props.diff, props.sideBySide],
  );
  return <div className="diff-view" data-testid="diff-view" dangerouslySetInnerHTML={{ __html: markup }} />;
}

/**
 * Whether an element is at least `min` px wide, kept up to date as it resizes (true until
 * measured). Pass the element itself (from a callback ref): it may mount after the component.
 */
export function useWideEnough(element: HTMLElement | null, min = SIDE_BY_SIDE_MIN_WIDTH): boolean {
  const [wide, setWide] = useState(true);
  useEffect(() => {
    if (!element) return;
    const measure = () => setWide(element.clientWidth >= min);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [element, min]);
  return wide;
}
