/** One progress line of an Ollama pull. */
export interface PullLine {
  status: string;
  digest?: string;
  total?: number;
  completed?: number;
}

/** The summed state of a pull across layers. */
export interface PullSnapshot {
  phase: string;
  doneBytes: number;
  totalBytes: number;
  percent: number | null;
  bytesPerSecond: number;
  etaSeconds: number | null;
}

/**
 * Sums an Ollama pull's per-layer progress into one bar: bytes done and total over every layer
 * seen so far, a smoothed speed and an ETA. Layers restart from their resumed offset, so a
 * resumed pull starts near where the last one stopped instead of at zero.
 */
export class PullTracker {
  private readonly layers = new Map<string, { total: number; completed: number }>();
  private phase = 'starting';
  private rate = 0;
  private lastSample: { at: number; bytes: number } | undefined;
  private lastByteAt: number;

  constructor(now = Date.now()) {
    this.lastByteAt = now;
  }

  /** Fold in one line; returns true when bytes moved. */
  update(line: PullLine, now = Date.now()): boolean {
    this.phase = phaseOf(line.status);
    if (!line.digest || !line.total) return false;
    const before = this.doneBytes();
    const prev = this.layers.get(line.digest);
    this.layers.set(line.digest, { total: line.total, completed: Math.max(line.completed ?? 0, 0) });
    const after = this.doneBytes();
    if (!prev) return false;
    const moved = after > before;
    if (moved) {
      this.lastByteAt = now;
      this.sample(now, after);
    }
    return moved;
  }

  /** Milliseconds since bytes last moved (stall detection). */
  idleMs(now = Date.now()): number {
    return now - this.lastByteAt;
  }

  /** Forget the speed sample (after a reconnect the first line jumps to the resumed offset). */
  resetSpeed(now = Date.now()): void {
    this.lastSample = undefined;
    this.lastByteAt = now;
  }

  /** The current summed state. */
  snapshot(): PullSnapshot {
    const doneBytes = this.doneBytes();
    const totalBytes = [...this.layers.values()].reduce((n, l) => n + l.total, 0);
    const left = totalBytes - doneBytes;
    return {
      phase: this.phase,
      doneBytes,
      totalBytes,
      percent: totalBytes > 0 ? Math.min(100, (doneBytes / totalBytes) * 100) : null,
      bytesPerSecond: Math.round(this.rate),
      etaSeconds: this.rate > 0 && totalBytes > 0 ? Math.ceil(left / this.rate) : null,
    };
  }

  private doneBytes(): number {
    let n = 0;
    for (const l of this.layers.values()) n += Math.min(l.completed, l.total);
    return n;
  }

  private sample(now: number, bytes: number): void {
    const last = this.lastSample;
    this.lastSample = { at: now, bytes };
    if (!last || now <= last.at) return;
    const instant = ((bytes - last.bytes) * 1000) / (now - last.at);
    // Exponential smoothing keeps the ETA from jumping with every line.
    this.rate = this.rate === 0 ? instant : this.rate * 0.7 + instant * 0.3;
  }
}

function phaseOf(status: string): string {
  if (status.startsWith('pulling ') && status !== 'pulling manifest') return 'downloading';
  return status;
}

export { formatBytes } from '../../../shared/format';
