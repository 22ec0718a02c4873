import type { EventKey, RunLogEntry } from '../../../shared/contract';

/**
 * The bounds of a run's event log. A chat answer is a few thousand `chat/token` events of ~100
 * bytes and a retrieve run's package one event of up to a few hundred KB, so a normal run fits
 * whole; a runaway one keeps its latest events (the oldest are dropped and `firstSeq` says so).
 */
export const RUN_LOG_LIMITS = {
  /** Events kept per run. */
  maxEvents: 20_000,
  /** Characters of JSON kept per run (the payloads as a transport sends them): 4 MiB. */
  maxChars: 4 * 1024 * 1024,
} as const;

/** How long a finished run's log stays attachable (its record and result stay while the job list keeps it). */
export const FINISHED_LOG_MS = 15 * 60_000;
/** At most this many finished runs keep their logs (the newest); so all logs together stay under ~(this + running) × maxChars. */
export const FINISHED_LOGS_KEPT = 20;

interface Entry extends RunLogEntry {
  chars: number;
}

/**
 * One run's events in the order they were emitted, each with its sequence number (1, 2, 3… per
 * run, also stamped on the payload as `seq`), bounded in count and size (oldest dropped first).
 */
export class RunEventLog {
  private entries: Entry[] = [];
  private chars = 0;
  private next = 1;
  private cleared = false;

  constructor(private readonly limits: { maxEvents: number; maxChars: number } = RUN_LOG_LIMITS) {}

  /** The next event's sequence number (taken by `append`). */
  nextSeq(): number {
    return this.next;
  }

  /** Keep `payload` (already stamped with its seq) as the run's next event; returns its seq. */
  append(event: EventKey, payload: unknown): number {
    const seq = this.next++;
    if (this.cleared) return seq;
    const chars = JSON.stringify(payload ?? null).length;
    this.entries.push({ seq, event, payload, chars });
    this.chars += chars;
    while (this.entries.length > 1 && (this.entries.length > this.limits.maxEvents || this.chars > this.limits.maxChars)) {
      this.chars -= (this.entries.shift() as Entry).chars;
    }
    return seq;
  }

  /** The events after `afterSeq` (all kept ones by default), oldest first. */
  since(afterSeq = 0): RunLogEntry[] {
    return this.entries.filter((e) => e.seq > afterSeq).map(({ seq, event, payload }) => ({ seq, event, payload }));
  }

  /** The seq of the last event the run emitted (0: none yet). */
  get lastSeq(): number {
    return this.next - 1;
  }

  /** The oldest seq still kept; `lastSeq + 1` when none is (everything before it was dropped). */
  get firstSeq(): number {
    return this.entries[0]?.seq ?? this.next;
  }

  /** Characters of JSON kept (for the bounds test). */
  get size(): { events: number; chars: number } {
    return { events: this.entries.length, chars: this.chars };
  }

  /** Let the events go (a finished run past its retention); later appends only count. */
  clear(): void {
    this.cleared = true;
    this.entries = [];
    this.chars = 0;
  }
}
