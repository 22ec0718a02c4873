import type { LabelCounts, LogOverview, ModelLatency } from '../../../../shared/contract';
import { bucketLabel, seriesColor, stageLines } from './chartData';

const W = 460;
const H = 200;
const PAD = { left: 44, right: 12, top: 12, bottom: 30 };

/** A stable colour per stage name, distinct for every stage of the chart (a slot of 8 repeated colours past the eighth). */
const colorOf = (stages: string[], stage: string) => seriesColor(stages.indexOf(stage));

/** Calls, or the default-deny rate, per stage over time: one line per stage (plain SVG). */
export function StageSeriesChart(props: { log: LogOverview; metric: 'calls' | 'denyRate'; title: string }) {
  const { log, metric } = props;
  const data = stageLines(log.series, metric);
  const stages = [...new Set(log.series.map((b) => b.stage))].sort();
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const n = data.buckets.length;
  const x = (i: number) => PAD.left + (n <= 1 ? plotW / 2 : (plotW * i) / (n - 1));
  const y = (v: number) => PAD.top + plotH * (1 - v / data.max);
  const fmt = (v: number) => (metric === 'denyRate' ? `${Math.round(v * 1000) / 10}%` : String(Math.round(v * 10) / 10));
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => t * data.max);
  // At most ~6 labels on the x axis.
  const step = Math.max(1, Math.ceil(n / 6));
  return (
    <figure className="data-chart">
      <figcaption className="data-chart-title">{props.title}</figcaption>
      {data.lines.length === 0 ? (
        <p className="muted data-chart-empty">{metric === 'calls' ? 'No model calls logged yet.' : 'No judged decisions logged yet.'}</p>
      ) : (
        <>
          <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={props.title}>
            {ticks.map((t) => (
              <g key={t}>
                <line className="chart-grid" x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
                <text className="chart-axis" x={PAD.left - 6} y={y(t) + 4} textAnchor="end">
                  {fmt(t)}
                </text>
              </g>
            ))}
            {data.buckets.map((bucket, i) =>
              i % step === 0 ? (
                <text key={bucket} className="chart-axis" x={x(i)} y={H - 10} textAnchor="middle">
                  {bucketLabel(bucket, log.bucketSize)}
                </text>
              ) : null,
            )}
            {data.lines.map((line) => (
              <g key={line.stage} style={{ stroke: colorOf(stages, line.stage), fill: colorOf(stages, line.stage) }} data-testid={`line-${metric}-${line.stage}`}>
                {line.points.length > 1 ? <polyline fill="none" strokeWidth={2} points={line.points.map((p) => `${x(p.index)},${y(p.value)}`).join(' ')} /> : null}
                {line.points.map((p) => (
                  <circle key={p.index} cx={x(p.index)} cy={y(p.value)} r={3}>
                    <title>{`${line.stage} · ${bucketLabel(data.buckets[p.index]!, log.bucketSize)}: ${fmt(p.value)}`}</title>
                  </circle>
                ))}
              </g>
            ))}
          </svg>
          <div className="chart-legend">
            {data.lines.map((l) => (
              <span key={l.stage}>
                <span className="swatch" style={{ background: colorOf(stages, l.stage) }} /> {l.stage}
              </span>
            ))}
          </div>
        </>
      )}
    </figure>
  );
}

/** Latency per model: p50 and p90 as horizontal bars, the mean and count beside (plain SVG). */
export function LatencyChart(props: { latency: ModelLatency[] }) {
  const rows = props.latency;
  const rowH = 34;
  const labelW = 150;
  const h = PAD.top + rows.length * rowH + 24;
  const max = Math.max(1, ...rows.map((r) => r.p90Ms));
  // Room on the right for the figures beside the bars.
  const w = (ms: number) => ((W - labelW - 190) * ms) / max;
  return (
    <figure className="data-chart">
      <figcaption className="data-chart-title">Latency per model</figcaption>
      {rows.length === 0 ? (
        <p className="muted data-chart-empty">No answered model calls logged yet.</p>
      ) : (
        <>
          <svg viewBox={`0 0 ${W} ${h}`} width={W} height={h} role="img" aria-label="Latency per model">
            {rows.map((r, i) => {
              const top = PAD.top + i * rowH;
              return (
                <g key={r.model} data-testid={`latency-${r.model}`}>
                  <text className="chart-axis" x={labelW - 8} y={top + 15} textAnchor="end">
                    {r.model.length > 22 ? `${r.model.slice(0, 21)}…` : r.model}
                  </text>
                  <rect className="latency-p90" x={labelW} y={top + 2} width={Math.max(1, w(r.p90Ms))} height={10}>
                    <title>{`${r.model} p90: ${r.p90Ms} ms`}</title>
                  </rect>
                  <rect className="latency-p50" x={labelW} y={top + 14} width={Math.max(1, w(r.p50Ms))} height={10}>
                    <title>{`${r.model} p50: ${r.p50Ms} ms`}</title>
                  </rect>
                  <text className="chart-value" x={labelW + Math.max(w(r.p90Ms), w(r.p50Ms)) + 6} y={top + 17}>
                    {`p50 ${r.p50Ms} · p90 ${r.p90Ms} ms · ${r.calls} calls`}
                  </text>
                </g>
              );
            })}
          </svg>
          <div className="chart-legend">
            <span>
              <span className="swatch latency-p50" /> p50
            </span>
            <span>
              <span className="swatch latency-p90" /> p90
            </span>
          </div>
        </>
      )}
    </figure>
  );
}

/** Yes / no of a stage as a small stacked bar with the figures. */
export function BalanceBar(props: { counts: LabelCounts; stage: string }) {
  const { yes, no, examples } = props.counts;
  const judged = yes + no;
  if (judged === 0) return <span className="muted">{examples} examples</span>;
  const share = yes / judged;
  return (
    <span className="balance" title={`${props.stage}: ${yes} yes, ${no} no`}>
      <svg width={60} height={8} role="img" aria-label={`${props.stage} balance: ${yes} yes, ${no} no`}>
        <rect className="balance-yes" x={0} y={0} width={60 * share} height={8} />
        <rect className="balance-no" x={60 * share} y={0} width={60 * (1 - share)} height={8} />
      </svg>{' '}
      {yes} / {no}
    </span>
  );
}
