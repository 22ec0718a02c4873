import { describe, expect, it } from 'vitest';
import type { RepoInfo, RunInfo } from '../../../../shared/contract';
import { activeRunOf, formatDuration, formatRelativeTime, languagesOf, progressFigures, progressPercent, repoOfTitle, repoReducers } from './reducers';

function repo(id: string, extra: Partial<RepoInfo> = {}): RepoInfo {
  return {
    id,
    name: id.replace(/-[0-9a-f]{8}$/, ''),
    path: `/home/dev/${id}`,
    status: 'ready',
    lastIndexedAt: null,
    watching: true,
    stats: { files: 0, symbols: 0, references: 0, dependencies: 0, commits: 0, coChangePairs: 0, chunks: 0, languages: {} },
    ...extra,
  };
}

const started: RunInfo = { runId: 'index-1', kind: 'index', title: 'Index shop', status: 'running', startedAt: '2026-01-01T00:00:00Z' };

describe('repository list reducers', () => {
  it('keeps the list sorted by name and replaces a repository by id', () => {
    let repos = repoReducers.upsert([], repo('zeta-00000001'));
    repos = repoReducers.upsert(repos, repo('alpha-00000002'));
    repos = repoReducers.upsert(repos, repo('zeta-00000001', { status: 'indexing' }));
    expect(repos.map((r) => [r.id, r.status])).toEqual([
      ['alpha-00000002', 'ready'],
      ['zeta-00000001', 'indexing'],
    ]);
    expect(repoReducers.remove(repos, 'alpha-00000002').map((r) => r.id)).toEqual(['zeta-00000001']);
  });

  it('orders languages by file count', () => {
    const r = repo('x-00000001', { stats: { ...repo('x').stats, languages: { markdown: 2, python: 10, typescript: 10 } } });
    expect(languagesOf(r).map((l) => l.language)).toEqual(['python', 'typescript', 'markdown']);
  });
});

describe('index run reducers', () => {
  it('tracks phases and progress of a run that the add answer ties to a repository', () => {
    const repos = [repo('shop-1a2b3c4d', { status: 'indexing' })];
    // Events may arrive before the answer of repos/add: the run is kept by id and tied later.
    let runs = repoReducers.runStarted({}, { ...started, title: 'Index something' }, repos);
    runs = repoReducers.progress(runs, { runId: 'index-1', kind: 'index', phase: 'scanning', done: 10 });
    runs = repoReducers.progress(runs, { runId: 'index-1', kind: 'index', phase: 'parsing', done: 25, total: 200, rate: 120, etaSeconds: 2 });
    runs = repoReducers.assign(runs, 'index-1', 'shop-1a2b3c4d');
    const run = runs['index-1'];
    expect(run?.repoId).toBe('shop-1a2b3c4d');
    expect(run?.phases).toEqual(['scanning', 'parsing']);
    expect(progressPercent(run?.progress)).toBe(13);
    expect(activeRunOf(runs, repos[0] as RepoInfo)?.runId).toBe('index-1');

    runs = repoReducers.finished(runs, { runId: 'index-1', kind: 'index', status: 'done' });
    expect(runs['index-1']?.status).toBe('done');
    expect(activeRunOf(runs, repos[0] as RepoInfo)).toBeNull();
  });

  it('ignores runs of other kinds and keeps a finished status when a late start arrives', () => {
    expect(repoReducers.runStarted({}, { ...started, kind: 'pull' }, [])).toEqual({});
    expect(repoReducers.progress({}, { runId: 'pull-1', kind: 'pull', phase: 'downloading', done: 1 })).toEqual({});
    const finished = repoReducers.finished({}, { runId: 'index-1', kind: 'index', status: 'cancelled' });
    expect(repoReducers.runStarted(finished, started, [])['index-1']?.status).toBe('cancelled');
  });

  it('finds the repository a run title names, and shows an unnamed index run on an indexing repository', () => {
    const repos = [repo('shop-1a2b3c4d'), repo('shop-api-99999999', { path: '/srv/shop-api' })];
    expect(repoOfTitle('Index /srv/shop-api', repos)).toBe('shop-api-99999999');
    expect(repoOfTitle('Index shop-1a2b3c4d', repos)).toBe('shop-1a2b3c4d');
    expect(repoOfTitle('Index something else', repos)).toBeNull();
    const runs = repoReducers.runStarted({}, { ...started, title: 'Index (watcher)' }, repos);
    expect(activeRunOf(runs, { ...(repos[0] as RepoInfo), status: 'indexing' })?.runId).toBe('index-1');
    expect(activeRunOf(runs, repos[0] as RepoInfo)).toBeNull();
  });
});

describe('formatting', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  it('says how long ago an index ran', () => {
    expect(formatRelativeTime(null, now)).toBe('never');
    expect(formatRelativeTime('2026-03-10T11:59:40Z', now)).toBe('just now');
    expect(formatRelativeTime('2026-03-10T11:57:00Z', now)).toBe('3 min ago');
    expect(formatRelativeTime('2026-03-10T09:00:00Z', now)).toBe('3 h ago');
    expect(formatRelativeTime('2026-03-08T12:00:00Z', now)).toBe('2 d ago');
    expect(formatRelativeTime('2025-01-02T12:00:00Z', now)).toBe('2025-01-02');
    expect(formatRelativeTime('not a date', now)).toBe('unknown');
  });
  it('formats an ETA', () => {
    expect(formatDuration(8.4)).toBe('8 s');
    expect(formatDuration(125)).toBe('2 min 5 s');
    expect(formatDuration(3720)).toBe('1 h 2 min');
    expect(progressPercent(null)).toBeNull();
    expect(progressPercent({ runId: 'r', kind: 'index', phase: 'scanning', done: 3 })).toBeNull();
  });

  it('keeps the progress of two embedding runs apart, tied by the repoId the engine gives', () => {
    // Two folders with the same name: the titles cannot tell them apart, the run's repoId can.
    const a = repo('shop-00000001', { path: '/home/dev/a/shop' });
    const b = repo('shop-00000002', { path: '/home/dev/b/shop' });
    const embed = (runId: string, repoId: string): RunInfo => ({ runId, kind: 'embed', title: 'Embedding shop', status: 'running', startedAt: '2026-01-01T00:00:00Z', repoId });
    let runs = repoReducers.runStarted({}, embed('embed-a', a.id), [a, b]);
    runs = repoReducers.runStarted(runs, embed('embed-b', b.id), [a, b]);
    runs = repoReducers.progress(runs, { runId: 'embed-a', kind: 'embed', phase: 'embeddings', done: 32, total: 100 });
    runs = repoReducers.progress(runs, { runId: 'embed-b', kind: 'embed', phase: 'embeddings', done: 900, total: 20_000 });
    expect(progressFigures('embed', activeRunOf(runs, a)?.progress ?? null)).toBe('32/100 chunks');
    expect(progressFigures('embed', activeRunOf(runs, b)?.progress ?? null)).toBe('900/20,000 chunks');
  });
});
