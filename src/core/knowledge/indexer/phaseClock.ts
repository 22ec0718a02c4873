import type { RunProgress } from '../../../shared/contract';

/** One progress update of an index run (the run id and kind are added by the runs registry). */
export type IndexProgress = Omit<RunProgress, 'runId' | 'kind'>;

/** Passes progress on and times each phase (from its first report to the next phase's). */
export class PhaseClock {
  private readonly phases: Record<string, number> = {};
  private current: string | null = null;
  private since = performance.now();

  constructor(private readonly forward: ((update: IndexProgress) => void) | undefined) {}

  /** Forward `update`, closing the current phase when it names another one. */
  readonly report = (update: IndexProgress): void => {
    if (update.phase !== this.current) this.enter(update.phase);
    this.forward?.(update);
  };

  /** Close the current phase; returns ms per phase in the order they ran. */
  stop(): Record<string, number> {
    this.enter(null);
    return this.phases;
  }

  private enter(phase: string | null): void {
    const now = performance.now();
    if (this.current !== null) this.phases[this.current] = Math.round((this.phases[this.current] ?? 0) + now - this.since);
    this.current = phase;
    this.since = now;
  }
}
