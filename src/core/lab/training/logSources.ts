import { existsSync, readdirSync } from 'node:fs';
import type { LogOverview, ModelLatency, StageFigures } from '../../../shared/contract/training';
import { openDatabase, type Db } from '../../platform/db/open';
import { LogAnalysis } from './logAnalysis';
import { repoPaths, reposDir, userRawDbPath } from '../../platform/layout';

/** One raw database of the data folder, opened read-only, with its analysis. */
export interface LogSource {
  file: string;
  /** The repository id, or null for the user-level log. */
  repoId: string | null;
  analysis: LogAnalysis;
}

/**
 * Every raw database of a data folder — the user-level one and each repository's — opened
 * read-only: the log a training mode reads (a repository's runs log into its own raw DB). A file
 * that cannot be read (an older schema, a broken copy) is left out and named in `skipped`.
 */
export class LogSources {
  private constructor(
    readonly sources: LogSource[],
    readonly skipped: Array<{ file: string; error: string }>,
    private readonly dbs: Db[],
  ) {}

  /** Open every raw database that exists under `dataDir`. */
  static open(dataDir: string): LogSources {
    const files: Array<{ file: string; repoId: string | null }> = [];
    const user = userRawDbPath(dataDir);
    if (existsSync(user)) files.push({ file: user, repoId: null });
    const repos = reposDir(dataDir);
    if (existsSync(repos)) {
      for (const id of readdirSync(repos).sort()) {
        const file = repoPaths(dataDir, id).raw;
        if (existsSync(file)) files.push({ file, repoId: id });
      }
    }
    const sources: LogSource[] = [];
    const skipped: Array<{ file: string; error: string }> = [];
    const dbs: Db[] = [];
    for (const f of files) {
      try {
        const db = openDatabase(f.file, { readOnly: true });
        dbs.push(db);
        const analysis = new LogAnalysis(db);
        analysis.volume();
        sources.push({ ...f, analysis });
      } catch (error) {
        skipped.push({ file: f.file, error: (error as Error).message });
      }
    }
    return new LogSources(sources, skipped, dbs);
  }

  close(): void {
    for (const db of this.dbs) db.close();
  }

  /** Calls, decisions and runs over all sources. */
  volume(): { calls: number; decisions: number; runs: number } {
    const v = { calls: 0, decisions: 0, runs: 0 };
    for (const s of this.sources) {
      const x = s.analysis.volume();
      v.calls += x.calls;
      v.decisions += x.decisions;
      v.runs += x.runs;
    }
    return v;
  }

  /** Per-stage figures over all sources (rates weighted by the counts they are rates of). */
  stageStats(): StageFigures[] {
    const acc = new Map<string, StageFigures & { latencySum: number; latencyCalls: number }>();
    for (const s of this.sources) {
      for (const x of s.analysis.stageStats()) {
        const a = acc.get(x.stage) ?? { stage: x.stage, calls: 0, errorRate: 0, meanLatencyMs: null, decisions: 0, judged: 0, defaultDenyRate: 0, yesRate: 0, latencySum: 0, latencyCalls: 0 };
        a.errorRate = (a.errorRate * a.calls + x.errorRate * x.calls) / Math.max(1, a.calls + x.calls);
        a.defaultDenyRate = (a.defaultDenyRate * a.judged + x.defaultDenyRate * x.judged) / Math.max(1, a.judged + x.judged);
        a.yesRate = (a.yesRate * a.judged + x.yesRate * x.judged) / Math.max(1, a.judged + x.judged);
        if (x.meanLatencyMs !== null) {
          a.latencySum += x.meanLatencyMs * x.calls;
          a.latencyCalls += x.calls;
        }
        a.calls += x.calls;
        a.decisions += x.decisions;
        a.judged += x.judged;
        acc.set(x.stage, a);
      }
    }
    return [...acc.values()]
      .map(({ latencySum, latencyCalls, ...f }) => ({ ...f, meanLatencyMs: latencyCalls ? Math.round(latencySum / latencyCalls) : null }))
      .sort((a, b) => a.stage.localeCompare(b.stage));
  }

  /** What the Data page draws: stage figures, the per-stage series, latency per model, runs by outcome. */
  overview(): LogOverview {
    let first: string | null = null;
    let last: string | null = null;
    for (const s of this.sources) {
      const span = s.analysis.span();
      if (!span) continue;
      if (first === null || span.first < first) first = span.first;
      if (last === null || span.last > last) last = span.last;
    }
    const bucketSize = first && last && Date.parse(last) - Date.parse(first) >= 2 * 86_400_000 ? 'day' : 'hour';
    const series = new Map<string, LogOverview['series'][number]>();
    const latencies = new Map<string, number[]>();
    const runs = new Map<string, LogOverview['runs'][number]>();
    for (const s of this.sources) {
      for (const b of s.analysis.stageSeries(bucketSize)) {
        const key = `${b.bucket}|${b.stage}`;
        const a = series.get(key) ?? { ...b, calls: 0, judged: 0, defaultDenied: 0 };
        a.calls += b.calls;
        a.judged += b.judged;
        a.defaultDenied += b.defaultDenied;
        series.set(key, a);
      }
      for (const [model, ms] of s.analysis.latencies()) latencies.set(model, [...(latencies.get(model) ?? []), ...ms]);
      for (const r of s.analysis.runCounts()) {
        const key = `${r.mode}|${r.status}`;
        const a = runs.get(key) ?? { mode: r.mode, status: r.status, count: 0 };
        a.count += r.count;
        runs.set(key, a);
      }
    }
    return {
      sources: this.sources.length,
      stages: this.stageStats(),
      bucketSize,
      series: [...series.values()].sort((a, b) => a.bucket.localeCompare(b.bucket) || a.stage.localeCompare(b.stage)),
      latency: [...latencies.entries()].map(([model, ms]) => latencyOf(model, ms)).sort((a, b) => a.model.localeCompare(b.model)),
      runs: [...runs.values()].sort((a, b) => a.mode.localeCompare(b.mode) || a.status.localeCompare(b.status)),
    };
  }
}

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function latencyOf(model: string, values: number[]): ModelLatency {
  const ms = [...values].sort((a, b) => a - b);
  return { model, calls: ms.length, meanMs: Math.round(ms.reduce((n, x) => n + x, 0) / Math.max(1, ms.length)), p50Ms: percentile(ms, 50), p90Ms: percentile(ms, 90), maxMs: ms[ms.length - 1] ?? 0 };
}
