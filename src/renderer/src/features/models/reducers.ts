import { formatBytes } from '../../../../shared/format';
import type { ModelPullProgress, RunFinished } from '../../../../shared/contract';

/** A pull as the Models page shows it. */
export interface PullView {
  runId: string;
  model: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  progress: ModelPullProgress | null;
  error: string | null;
  /** A stopped pull that Pull again continues: a cancel or a broken download, not a name the library does not have. */
  resumable: boolean;
}

/** Failures a second pull cannot get past: the engine's message says what to change instead. */
const NOT_RESUMABLE = new Set(['MODEL_NOT_FOUND', 'VALIDATION', 'CONFIG_INVALID', 'UNSUPPORTED']);

/** Pulls by model name. */
export type Pulls = Record<string, PullView>;

/** Pure updates of the pull list from actions and pushed events; tested without React. */
export const pullReducers = {
  started(pulls: Pulls, model: string, runId: string): Pulls {
    const previous = pulls[model]?.progress ?? null;
    // Keep the last progress: a resumed pull continues from where the bar stood.
    return { ...pulls, [model]: { runId, model, status: 'running', progress: previous ? { ...previous, runId } : null, error: null, resumable: false } };
  },
  progress(pulls: Pulls, p: ModelPullProgress): Pulls {
    const current = pulls[p.model];
    if (current && current.runId !== p.runId) return pulls;
    // A resumed pull first reports its manifest step with no byte totals yet: keep the bar where it
    // stood instead of dropping it to zero until the layers report again.
    const known = current?.progress;
    const progress = p.totalBytes === 0 && known && known.totalBytes > 0 ? { ...known, runId: p.runId, phase: p.phase } : p;
    return { ...pulls, [p.model]: { runId: p.runId, model: p.model, status: 'running', progress, error: null, resumable: false } };
  },
  finished(pulls: Pulls, f: RunFinished): Pulls {
    const entry = Object.values(pulls).find((v) => v.runId === f.runId);
    if (!entry) return pulls;
    return { ...pulls, [entry.model]: { ...entry, status: f.status, error: f.error?.message ?? null, resumable: f.status === 'cancelled' || (f.status === 'failed' && !NOT_RESUMABLE.has(f.error?.code ?? '')) } };
  },
  failedToStart(pulls: Pulls, model: string, error: { code: string; message: string }): Pulls {
    return { ...pulls, [model]: { runId: '', model, status: 'failed', progress: pulls[model]?.progress ?? null, error: error.message, resumable: !NOT_RESUMABLE.has(error.code) } };
  },
  cleared(pulls: Pulls, model: string): Pulls {
    const next = { ...pulls };
    delete next[model];
    return next;
  },
};

export { formatBytes } from '../../../../shared/format';

/** "42% · 1.1 GB of 2.5 GB · 12 MB/s · 2m 3s left". */
export function pullLabel(p: ModelPullProgress | null): string {
  if (!p) return 'Starting…';
  if (!p.totalBytes) return p.phase;
  const parts = [`${Math.floor(p.percent ?? 0)}%`, `${formatBytes(p.doneBytes)} of ${formatBytes(p.totalBytes)}`];
  if (p.bytesPerSecond > 0) parts.push(`${formatBytes(p.bytesPerSecond)}/s`);
  if (p.etaSeconds !== null && p.percent !== 100) parts.push(`${Math.floor(p.etaSeconds / 60)}m ${p.etaSeconds % 60}s left`);
  if (p.retry) parts.push(`reconnected ${p.retry}×`);
  return parts.join(' · ');
}
