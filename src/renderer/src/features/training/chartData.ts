import type { StageBucket } from '../../../../shared/contract';

/** One stage's line: its value in each bucket where it had anything to count. */
export interface StageLine {
  stage: string;
  points: Array<{ index: number; value: number }>;
}

/** Lines of a per-stage series over time: the buckets (x), one line per stage, and the top of the y axis. */
export interface LineChartData {
  buckets: string[];
  lines: StageLine[];
  max: number;
}

/**
 * Calls per stage, or the default-deny rate of each stage's judged decisions, per time bucket. A
 * rate exists only where the stage judged something (a bucket without judgments has no point, not
 * a zero); stages that never judged have no rate line.
 */
export function stageLines(series: readonly StageBucket[], metric: 'calls' | 'denyRate'): LineChartData {
  const buckets = [...new Set(series.map((b) => b.bucket))].sort();
  const at = new Map(buckets.map((b, i) => [b, i]));
  const byStage = new Map<string, StageLine>();
  for (const b of series) {
    if (metric === 'calls' ? b.calls === 0 : b.judged === 0) continue;
    const line = byStage.get(b.stage) ?? { stage: b.stage, points: [] };
    line.points.push({ index: at.get(b.bucket)!, value: metric === 'calls' ? b.calls : b.defaultDenied / b.judged });
    byStage.set(b.stage, line);
  }
  const lines = [...byStage.values()].sort((a, b) => a.stage.localeCompare(b.stage));
  for (const l of lines) l.points.sort((a, b) => a.index - b.index);
  const top = Math.max(0, ...lines.flatMap((l) => l.points.map((p) => p.value)));
  return { buckets, lines, max: metric === 'denyRate' ? Math.max(0.1, Math.min(1, niceCeil(top))) : Math.max(1, niceCeil(top)) };
}

/** The next "nice" number at or above x (1, 2, 2.5, 5 × 10^k). */
export function niceCeil(x: number): number {
  if (x <= 0) return 0;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= x - 1e-12) return m * p;
  return 10 * p;
}

/** A bucket's label on the x axis: the day (MM-DD) or the hour (MM-DD HH:00). */
export function bucketLabel(bucket: string, size: 'hour' | 'day'): string {
  return size === 'day' ? bucket.slice(5, 10) : `${bucket.slice(5, 10)} ${bucket.slice(11, 13)}:00`;
}

/**
 * Twelve colours far apart in hue and lightness, readable on the light and the dark background:
 * one per stage (there are twelve), so no two lines of a chart share a colour.
 */
const SERIES_COLORS = ['#0b63d1', '#d1730b', '#1a7f37', '#8250df', '#c62828', '#0a8a8a', '#8a6d0a', '#59636e', '#d13f9a', '#5b8c00', '#4a4ad1', '#a0522d'];

/** The colour of the `index`-th series of a chart: the twelve above, then hues spread by the golden angle (never a repeat). */
export function seriesColor(index: number): string {
  if (index < SERIES_COLORS.length) return SERIES_COLORS[index]!;
  const hue = Math.round((index * 137.508) % 360);
  return `hsl(${hue}, 65%, ${index % 2 ? 45 : 55}%)`;
}
