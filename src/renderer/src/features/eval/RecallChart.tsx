import type { EvalReport } from '../../../../shared/contract';
import { chartBars } from './reducers';

const WIDTH = 520;
const HEIGHT = 220;
const PAD = { left: 36, right: 12, top: 12, bottom: 36 };
const METHOD_CLASS: Record<string, string> = {
  search: 'bar-search',
  'search-hybrid': 'bar-search',
  'search-semantic': 'bar-search',
  bm25: 'bar-bm25',
  pipeline: 'bar-pipeline',
  'search-source': 'bar-search-source',
  'search-hybrid-source': 'bar-search-source',
  'search-semantic-source': 'bar-search-source',
  'bm25-source': 'bar-bm25-source',
  'bm25-standard': 'bar-bm25-standard',
  'search-functions': 'bar-search',
};

/** What the legend calls a method (the method's own name when it needs no words). */
const METHOD_LABEL: Record<string, string> = {
  search: 'search (model-free)',
  'search-source': 'search, source files only',
  bm25: 'Keyword search, whole files (reference)',
  'bm25-source': 'Keyword search, source files only (reference)',
  'bm25-standard': 'Standard keyword search: split identifiers, paths (reference)',
  'search-functions': 'search, functions (function-level)',
};

/** recall@k per method as grouped bars (plain SVG): one group per k, one bar per method, 0..1. */
export function RecallChart(props: { report: EvalReport }) {
  const { report } = props;
  const bars = chartBars(report);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const groupW = plotW / report.ks.length;
  const barW = Math.min(40, (groupW * 0.7) / report.methods.length);
  const y = (v: number) => PAD.top + plotH * (1 - v);
  return (
    <figure className="recall-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width={WIDTH} height={HEIGHT} role="img" aria-label="recall at k per method">
        {[0, 0.25, 0.5, 0.75, 1].map((t) => (
          <g key={t}>
            <line className="chart-grid" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(t)} y2={y(t)} />
            <text className="chart-axis" x={PAD.left - 6} y={y(t) + 4} textAnchor="end">
              {t}
            </text>
          </g>
        ))}
        {report.ks.map((k, gi) => (
          <text key={k} className="chart-axis" x={PAD.left + groupW * (gi + 0.5)} y={HEIGHT - 14} textAnchor="middle">
            found in top {k}
          </text>
        ))}
        {bars.map((bar) => {
          const gi = report.ks.indexOf(bar.k);
          const mi = report.methods.indexOf(bar.method);
          const x = PAD.left + groupW * (gi + 0.5) - (barW * report.methods.length) / 2 + mi * barW;
          return (
            <g key={`${bar.k}-${bar.method}`} data-testid={`bar-${bar.method}-${bar.k}`}>
              <rect className={METHOD_CLASS[bar.method]} x={x + 2} width={barW - 4} y={y(bar.value)} height={plotH * bar.value}>
                <title>{`${bar.method} recall@${bar.k}: ${bar.value.toFixed(3)}`}</title>
              </rect>
              <text className="chart-value" x={x + barW / 2} y={y(bar.value) - 3} textAnchor="middle">
                {bar.value.toFixed(2)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="chart-legend">
        {report.methods.map((m) => (
          <span key={m}>
            <span className={`swatch ${METHOD_CLASS[m]}`} /> {METHOD_LABEL[m] ?? m}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
