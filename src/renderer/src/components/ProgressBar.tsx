/**
 * A determinate progress bar. The fill is scaled (a transform), not resized: an update animates
 * without a layout per frame. Index runs update it up to 10 times a second while the engine works
 * on the same cores, and a width transition re-laid the page out on every frame of every update.
 */
export function ProgressBar(props: { percent: number | null; label: string; className?: string }) {
  const percent = props.percent === null ? null : Math.max(0, Math.min(100, props.percent));
  return (
    <div
      className={props.className ? `progress ${props.className}` : 'progress'}
      role="progressbar"
      aria-label={props.label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent === null ? undefined : Math.floor(percent)}
    >
      <div style={{ transform: `scaleX(${(percent ?? 0) / 100})` }} />
    </div>
  );
}
