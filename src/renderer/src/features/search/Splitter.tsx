import { useCallback, useRef, useState, type RefObject } from 'react';
import { clampResultsWidth, SPLIT } from './reducers';

const STORAGE_KEY = 'cra.search.resultsWidth';
/** Pixels one arrow key press moves the splitter. */
const KEY_STEP = 24;

function storedWidth(): number {
  const value = Number(globalThis.localStorage?.getItem(STORAGE_KEY));
  return Number.isFinite(value) && value > 0 ? value : SPLIT.defaultResults;
}

/** The results column width, kept across visits to the page (and restarts) in localStorage. */
export function useResultsWidth(): [number, (width: number) => void] {
  const [width, setWidth] = useState(storedWidth);
  const update = useCallback((next: number) => {
    setWidth(next);
    globalThis.localStorage?.setItem(STORAGE_KEY, String(next));
  }, []);
  return [width, update];
}

/**
 * The draggable bar between the results and the file view (also ←/→ when focused). The width is
 * clamped so the file pane keeps its minimum; CSS clamps it again when the window shrinks.
 */
export function Splitter(props: { container: RefObject<HTMLElement | null>; width: number; onChange(width: number): void }) {
  const drag = useRef<{ x: number; width: number } | null>(null);
  const total = () => props.container.current?.clientWidth ?? props.width + SPLIT.minFile;
  const max = clampResultsWidth(Number.MAX_SAFE_INTEGER, total());
  return (
    <div
      className="splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize results"
      aria-valuemin={SPLIT.minResults}
      aria-valuemax={max}
      aria-valuenow={Math.min(props.width, max)}
      tabIndex={0}
      onPointerDown={(event) => {
        event.preventDefault();
        event.currentTarget.setPointerCapture(event.pointerId);
        drag.current = { x: event.clientX, width: Math.min(props.width, max) };
      }}
      onPointerMove={(event) => {
        if (drag.current) props.onChange(clampResultsWidth(drag.current.width + event.clientX - drag.current.x, total()));
      }}
      onPointerUp={(event) => {
        drag.current = null;
        event.currentTarget.releasePointerCapture(event.pointerId);
      }}
      onKeyDown={(event) => {
        if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
        event.preventDefault();
        const from = Math.min(props.width, max);
        props.onChange(clampResultsWidth(from + (event.key === 'ArrowRight' ? KEY_STEP : -KEY_STEP), total()));
      }}
    />
  );
}
