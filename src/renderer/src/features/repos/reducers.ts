import type { RepoInfo, RunProgress } from '../../../../shared/contract';
import type { RunEntry } from '../runs/reducers';

/** The phases of an index run, in order (the engine reports them as `run/progress` phases). */
export const INDEX_PHASES = ['scanning', 'parsing', 'references', 'git history', 'search index', 'saving'] as const;

/** An index or embedding run, as a repository's row shows it (from the runs store; its subject names the repository). */
export type RepoRun = RunEntry<'index' | 'embed'>;

/** Pure updates of the repository list from answers and pushed events (its runs are in the runs store). */
export const repoReducers = {
  /** Insert or replace one repository, keeping the list sorted by name. */
  upsert(repos: RepoInfo[], repo: RepoInfo): RepoInfo[] {
    const rest = repos.filter((r) => r.id !== repo.id);
    return [...rest, repo].sort((a, b) => a.name.localeCompare(b.name) || a.path.localeCompare(b.path));
  },
  remove(repos: RepoInfo[], repoId: string): RepoInfo[] {
    return repos.filter((r) => r.id !== repoId);
  },
};

/**
 * What a progress's counts are counted in: the parse counts files, embedding counts chunks. Other
 * phases (references, git history, search index, saving) report no count, so they show none.
 */
export function progressUnit(kind: string, phase: string | undefined): 'files' | 'chunks' | null {
  if (kind === 'embed' || phase === 'embeddings') return 'chunks';
  if (phase === 'parsing' || phase === 'scanning') return 'files';
  return null;
}

/**
 * The figures beside the bar: "50/200 files · 40 files/s · ETA 4 s", or "" while a phase reports
 * no total (a bare done of 0 says nothing; the bar is indeterminate then).
 */
export function progressFigures(kind: string, progress: RunProgress | null): string {
  if (!progress) return 'starting…';
  if (!progress.total) return '';
  const unit = progressUnit(kind, progress.phase);
  const parts = [`${progress.done.toLocaleString('en-US')}/${progress.total.toLocaleString('en-US')}${unit ? ` ${unit}` : ''}`];
  if (progress.rate) parts.push(`${Math.round(progress.rate)} ${unit ?? 'items'}/s`);
  if (progress.etaSeconds !== undefined) parts.push(`ETA ${formatDuration(progress.etaSeconds)}`);
  return parts.join(' · ');
}

/** 0–100 for a progress with a known total, else null. */
export function progressPercent(progress: RunProgress | null | undefined): number | null {
  if (!progress || !progress.total) return null;
  return Math.max(0, Math.min(100, Math.round((progress.done / progress.total) * 100)));
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", or the date; "never" for null. */
export function formatRelativeTime(iso: string | null, now: Date = new Date()): string {
  if (!iso) return 'never';
  const then = new Date(iso);
  if (Number.isNaN(then.getTime())) return 'unknown';
  const seconds = Math.round((now.getTime() - then.getTime()) / 1000);
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 30) return `${days} d ago`;
  return then.toISOString().slice(0, 10);
}

/** A short duration for an ETA: "8 s", "2 min 5 s", "1 h 4 min". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Languages of a repository, most files first. */
export function languagesOf(repo: RepoInfo): Array<{ language: string; files: number }> {
  return Object.entries(repo.stats.languages)
    .map(([language, files]) => ({ language, files }))
    .sort((a, b) => b.files - a.files || a.language.localeCompare(b.language));
}
