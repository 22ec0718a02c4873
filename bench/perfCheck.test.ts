import { describe, expect, it } from 'vitest';
import { figure, formatFigures } from './perfCheck';

describe('perf-check figures', () => {
  it('takes the median of the rounds, fails above 1.5x the target, or above 1.5x today where the target is not met yet', () => {
    // Round 3 ran under a burst of load that slowed both sides: its ratio stays near the others.
    const fast = figure('start-up', [60, 62, 900], [40, 41, 600], 1.5);
    expect(fast).toMatchObject({ ms: 62, referenceMs: 41, ratio: 1.5, threshold: 2.25 });
    const chat = figure('chat', [300], [50], 3, 5.7);
    expect(chat.ratio).toBe(6);
    expect(chat.threshold).toBe(8.55);
    const worse = figure('search', [200], [50], 2.5);
    const table = formatFigures([fast, chat, worse]);
    expect(table.split('\n').slice(0, 3).map((line) => line.slice(0, 4))).toEqual(['ok  ', 'slow', 'FAIL']);
  });
});
