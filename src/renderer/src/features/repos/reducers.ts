import type { IndexSummary, RepoInfo, RunFinished, RunInfo, RunProgress } from '../../../../shared/contract';

/** The phases of an index run, in order (the engine reports them as `run/progress` phases). */
export const INDEX_PHASES = ['scanning', 'parsing', 'references', 'git history', 'search index', 'saving'] as const;

/** Kinds of runs that work on one repository and show on its row. */
const REPO_RUN_KINDS = new Set(['index', 'embed']);

/** What the page knows about one index or embedding run. */
export interface RepoRun {
  runId: string;
  kind: string;
  title: string;
  /** The repository it works on, once known (from the add/reindex answer or the run's title). */
  repoId: string | null;
  status: RunInfo['status'];
  progress: RunProgress | null;
  error: { code: string; message: string } | null;
  /** Phases seen so far, in the order they arrived. */
  phases: string[];
  /** What a finished index run reported (counts, time per phase). */
  summary: IndexSummary | null;
}

/** Pure updates of the repository list and its runs from answers and pushed events. */
export const repoReducers = {
  /** Insert or replace one repository, keeping the list sorted by name. */
  upsert(repos: RepoInfo[], repo: RepoInfo): RepoInfo[] {
    const rest = repos.filter((r) => r.id !== repo.id);
    return [...rest, repo].sort((a, b) => a.name.localeCompare(b.name) || a.path.localeCompare(b.path));
  },
  remove(repos: RepoInfo[], repoId: string): RepoInfo[] {
    return repos.filter((r) => r.id !== repoId);
  },
  /** A run started (or was listed at load); only repository runs are kept. */
  runStarted(runs: Record<string, RepoRun>, run: RunInfo, repos: RepoInfo[]): Record<string, RepoRun> {
    if (!REPO_RUN_KINDS.has(run.kind)) return runs;
    const known = runs[run.runId];
    const progress = run.progress ?? known?.progress ?? null;
    const phases = known?.phases ?? (progress ? [progress.phase] : []);
    const next: RepoRun = {
      runId: run.runId,
      kind: run.kind,
      title: run.title,
      // The engine names the repository (index and embedding runs); the title is a guess for older engines.
      repoId: run.repoId ?? known?.repoId ?? repoOfTitle(run.title, repos),
      status: known && known.status !== 'running' ? known.status : run.status,
      progress,
      error: run.error ?? known?.error ?? null,
      phases,
      summary: known?.summary ?? null,
    };
    return { ...runs, [run.runId]: next };
  },
  /** Progress of a run; a run never seen start is created from it. */
  progress(runs: Record<string, RepoRun>, progress: RunProgress): Record<string, RepoRun> {
    if (!REPO_RUN_KINDS.has(progress.kind)) return runs;
    const known = runs[progress.runId] ?? blankRun(progress.runId, progress.kind);
    const phases = known.phases.includes(progress.phase) ? known.phases : [...known.phases, progress.phase];
    return { ...runs, [progress.runId]: { ...known, progress, phases } };
  },
  finished(runs: Record<string, RepoRun>, finished: RunFinished): Record<string, RepoRun> {
    if (!REPO_RUN_KINDS.has(finished.kind)) return runs;
    const known = runs[finished.runId] ?? blankRun(finished.runId, finished.kind);
    const summary = finished.kind === 'index' && finished.status === 'done' && isIndexSummary(finished.result) ? finished.result : known.summary;
    return { ...runs, [finished.runId]: { ...known, status: finished.status, error: finished.error ?? null, summary } };
  },
  /** Tie a run to its repository (the add/reindex answer names both). */
  assign(runs: Record<string, RepoRun>, runId: string, repoId: string, kind = 'index'): Record<string, RepoRun> {
    const known = runs[runId] ?? blankRun(runId, kind);
    return { ...runs, [runId]: { ...known, repoId } };
  },
};

function blankRun(runId: string, kind: string): RepoRun {
  return { runId, kind, title: kind, repoId: null, status: 'running', progress: null, error: null, phases: [], summary: null };
}

function isIndexSummary(value: unknown): value is IndexSummary {
  const v = value as Partial<IndexSummary> | null | undefined;
  return typeof v?.durationMs === 'number' && typeof v.parsed === 'number' && typeof v.phaseMs === 'object' && v.phaseMs !== null;
}

/** The summary of the repository's most recent index run that finished in this session, if any. */
export function lastIndexSummaryOf(runs: Record<string, RepoRun>, repoId: string): IndexSummary | null {
  let last: IndexSummary | null = null;
  for (const run of Object.values(runs)) if (run.repoId === repoId && run.summary) last = run.summary;
  return last;
}

/** Which repository a run's title names (its id, path or name), when exactly one matches. */
export function repoOfTitle(title: string, repos: RepoInfo[]): string | null {
  const byId = repos.find((r) => title.includes(r.id));
  if (byId) return byId.id;
  const byPath = repos.filter((r) => title.includes(r.path)).sort((a, b) => b.path.length - a.path.length);
  if (byPath[0]) return byPath[0].id;
  const byName = repos.filter((r) => new RegExp(`\\b${escapeRegExp(r.name)}\\b`).test(title));
  return byName.length === 1 && byName[0] ? byName[0].id : null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The running run of a repository (index first, then embedding), if any. */
export function activeRunOf(runs: Record<string, RepoRun>, repo: RepoInfo): RepoRun | null {
  const running = Object.values(runs).filter((r) => r.status === 'running');
  const mine = running.filter((r) => r.repoId === repo.id);
  const index = mine.find((r) => r.kind === 'index');
  if (index) return index;
  if (repo.status === 'indexing') {
    // A run the page did not start (the watcher, another window) and whose title names no repository.
    const orphan = running.find((r) => r.kind === 'index' && r.repoId === null);
    if (orphan) return orphan;
  }
  return mine[0] ?? null;
}

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
