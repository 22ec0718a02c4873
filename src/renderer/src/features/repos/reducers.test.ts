import { describe, expect, it } from 'vitest';
import type { RepoInfo, RunInfo } from '../../../../shared/contract';
import { runReducers, type RunsList } from '../runs/reducers';
import { runsSelectors } from '../runs/store';
import { formatDuration, formatRelativeTime, languagesOf, progressFigures, progressPercent, repoReducers } from './reducers';

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

const started: RunInfo = { runId: 'index-1', kind: 'index', subject: { repoId: 'shop-1a2b3c4d' }, title: 'Index shop', status: 'running', startedAt: '2026-01-01T00:00:00Z' };
const empty: RunsList = { runs: [], early: {} };

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

describe('the runs of a repository (runs store)', () => {
  const state = (list: RunsList) => ({ ...list, info: null, engine: 'ok' as const, error: null });

  it('tracks phases and progress of an index run tied to its repository by its subject', () => {
    const shop = repo('shop-1a2b3c4d', { status: 'indexing' });
    let list = runReducers.started(empty, started);
    list = runReducers.progress(list, { runId: 'index-1', kind: 'index', phase: 'scanning', done: 10 });
    list = runReducers.progress(list, { runId: 'index-1', kind: 'index', phase: 'parsing', done: 25, total: 200, rate: 120, etaSeconds: 2 });
    const run = runsSelectors.activeRepoRun(shop.id)(state(list));
    expect(run?.runId).toBe('index-1');
    expect(run?.phases).toEqual(['scanning', 'parsing']);
    expect(progressPercent(run?.progress)).toBe(13);

    list = runReducers.finished(list, { runId: 'index-1', kind: 'index', status: 'done' });
    expect(list.runs[0]?.status).toBe('done');
    expect(runsSelectors.activeRepoRun(shop.id)(state(list))).toBeNull();
  });

  it('shows no run of another kind or of another repository on a row, and keeps a finished status when a late start arrives', () => {
    let list = runReducers.started(empty, { runId: 'pull-1', kind: 'pull', subject: { model: 'shop-1a2b3c4d' }, title: 'Pull', status: 'running', startedAt: '2026-01-01T00:00:00Z' });
    list = runReducers.started(list, { ...started, runId: 'index-2', subject: { repoId: 'other-00000000' } });
    expect(runsSelectors.activeRepoRun('shop-1a2b3c4d')(state(list))).toBeNull();
    const finished = runReducers.finished(runReducers.started(empty, started), { runId: 'index-1', kind: 'index', status: 'cancelled' });
    expect(runReducers.started(finished, started).runs[0]?.status).toBe('cancelled');
  });

  it('shows the index run before an embedding run of the same repository', () => {
    let list = runReducers.started(empty, { runId: 'embed-1', kind: 'embed', subject: { repoId: 'shop-1a2b3c4d' }, title: 'Embedding shop', status: 'running', startedAt: '2026-01-01T00:00:00Z' });
    list = runReducers.started(list, started);
    list = runReducers.started(list, { runId: 'embed-0', kind: 'embed', subject: { repoId: 'shop-1a2b3c4d' }, title: 'Embedding shop', status: 'running', startedAt: '2026-01-01T00:00:02Z' });
    expect(runsSelectors.activeRepoRun('shop-1a2b3c4d')(state(list))?.runId).toBe('index-1');
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
    const embed = (runId: string, repoId: string): RunInfo => ({ runId, kind: 'embed', title: 'Embedding shop', status: 'running', startedAt: '2026-01-01T00:00:00Z', subject: { repoId } });
    let list = runReducers.started(empty, embed('embed-a', a.id));
    list = runReducers.started(list, embed('embed-b', b.id));
    list = runReducers.progress(list, { runId: 'embed-a', kind: 'embed', phase: 'embeddings', done: 32, total: 100 });
    list = runReducers.progress(list, { runId: 'embed-b', kind: 'embed', phase: 'embeddings', done: 900, total: 20_000 });
    const state = { ...list, info: null, engine: 'ok' as const, error: null };
    expect(progressFigures('embed', runsSelectors.activeRepoRun(a.id)(state)?.progress ?? null)).toBe('32/100 chunks');
    expect(progressFigures('embed', runsSelectors.activeRepoRun(b.id)(state)?.progress ?? null)).toBe('900/20,000 chunks');
  });
});
