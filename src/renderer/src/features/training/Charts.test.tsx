import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogOverview } from '../../../../shared/contract';
import { seriesColor } from './chartData';
import { StageSeriesChart } from './Charts';

afterEach(cleanup);

/** The twelve stages a model can be assigned to, each with calls in one hour. */
const STAGES = ['analysis', 'chat', 'coding', 'critic', 'embedding', 'enrich', 'plan', 'precision', 'routing', 'scope', 'summary', 'translate'];
const log = { sources: 1, stages: [], bucketSize: 'hour', latency: [], runs: [], series: STAGES.map((stage, i) => ({ bucket: '2026-11-23T10:00:00.000Z', stage, calls: i + 1, judged: 0, defaultDenied: 0 })) } as unknown as LogOverview;

describe('Data charts', () => {
  it('give each of twelve stages its own colour, the same in the line and its legend swatch', () => {
    const { container } = render(<StageSeriesChart log={log} metric="calls" title="Calls per stage" />);
    const swatches = [...container.querySelectorAll<HTMLElement>('.chart-legend .swatch')].map((s) => s.style.background);
    const lines = STAGES.map((stage) => container.querySelector<SVGGElement>(`[data-testid="line-calls-${stage}"]`)?.style.stroke);
    expect(swatches).toHaveLength(12);
    expect(new Set(swatches).size).toBe(12);
    expect(new Set(lines).size).toBe(12);
  });

  it('never repeats a colour, past the twelve chosen ones too', () => {
    const colors = Array.from({ length: 40 }, (_, i) => seriesColor(i));
    expect(new Set(colors).size).toBe(40);
  });
});
