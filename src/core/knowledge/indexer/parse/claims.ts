/**
 * Who prepares a file when a worker and the engine thread could both take it: a table of one
 * Int32 per job in a SharedArrayBuffer, shared with the parse workers. Whoever claims a job first
 * (an atomic compare-and-swap from FREE) prepares it; the other one skips it. The engine thread
 * uses it to take back, at the end of a run, files still queued at a worker instead of waiting idle
 * for them. Loaded by the workers too: no imports.
 */

export const FREE = 0;
export const CLAIMED_BY_WORKER = 1;
export const CLAIMED_HERE = 2;

/** A zeroed claim table for `jobs` jobs. */
export function claimTable(jobs: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Math.max(jobs, 1) * Int32Array.BYTES_PER_ELEMENT));
}

/** Claim job `index` for `by`; true when nobody had claimed it. */
export function claim(table: Int32Array, index: number, by: typeof CLAIMED_BY_WORKER | typeof CLAIMED_HERE): boolean {
  return Atomics.compareExchange(table, index, FREE, by) === FREE;
}
