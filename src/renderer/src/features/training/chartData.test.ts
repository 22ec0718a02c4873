import { describe, expect, it } from 'vitest';
import { bucketLabel, niceCeil, stageLines } from './chartData';

const b = (bucket: string, stage: string, calls: number, judged: number, defaultDenied: number) => ({ bucket, stage, calls, judged, defaultDenied });

describe('stage lines of the Data page charts', () => {
  const series = [b('2026-11-23T10:00:00.000Z', 'scope', 6, 6, 1), b('2026-11-23T09:00:00.000Z', 'scope', 4, 4, 0), b('2026-11-23T10:00:00.000Z', 'chat', 2, 0, 0)];

  it('counts calls per stage per bucket, buckets in time order', () => {
    const d = stageLines(series, 'calls');
    expect(d.buckets).toEqual(['2026-11-23T09:00:00.000Z', '2026-11-23T10:00:00.000Z']);
    expect(d.lines).toEqual([
      { stage: 'chat', points: [{ index: 1, value: 2 }] },
      { stage: 'scope', points: [{ index: 0, value: 4 }, { index: 1, value: 6 }] },
    ]);
    expect(d.max).toBe(10);
  });

  it('gives a default-deny rate only where a stage judged something', () => {
    const d = stageLines(series, 'denyRate');
    expect(d.lines).toEqual([{ stage: 'scope', points: [{ index: 0, value: 0 }, { index: 1, value: 1 / 6 }] }]);
    expect(d.max).toBe(0.2);
  });

  it('rounds axis tops up to nice numbers and labels buckets by their size', () => {
    expect([niceCeil(7), niceCeil(0.17), niceCeil(23), niceCeil(1)]).toEqual([10, 0.2, 25, 1]);
    expect(bucketLabel('2026-11-23T10:00:00.000Z', 'hour')).toBe('11-23 10:00');
    expect(bucketLabel('2026-11-23T00:00:00.000Z', 'day')).toBe('11-23');
  });
});
