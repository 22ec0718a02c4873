/** Format a byte count for people, in decimal units as download sizes are quoted: 1.2 GB, 340 MB, 512 B. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** A duration in ms for people: `52 ms`, `2.16 s`. */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** Where an index run's time went, in run order: `scanning 52 ms · parsing 2.21 s · references 176 ms`. */
export function formatPhases(phaseMs: Record<string, number>): string {
  return Object.entries(phaseMs)
    .map(([phase, ms]) => `${phase} ${formatMs(ms)}`)
    .join(' · ');
}

/** A count with its noun, singular for one: `1 commit`, `2,719 file dependencies`. */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? singular : plural}`;
}
