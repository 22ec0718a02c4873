/**
 * A progress bar: determinate with a percent, indeterminate (sliding) with null. The fill is scaled (a transform), not resized: an update animates
 * without a layout per frame. Index runs update it up to 10 times a second while the engine works
 * on the same cores, and a width transition re-laid the page out on every frame of every update.
 */
export function ProgressBar(props: { percent: number | null; label: string; className?: string }) {
  const percent = props.percent === null ? null : Math.max(0, Math.min(100, props.percent));
  return (
    <div
      className={['progress', percent === null ? 'indeterminate' : '', props.className ?? ''].filter(Boolean).join(' ')}
      role="progressbar"
      aria-label={props.label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent === null ? undefined : Math.floor(percent)}
    >
      {/* No total (a phase that reports no count): a sliding bar says "working" without a bogus figure. */}
      <div style={percent === null ? undefined : { transform: `scaleX(${percent / 100})` }} />
    </div>
  );
}
