import { describe, expect, it } from 'vitest';
import type { EvalReport, RunInfo } from '../../../../shared/contract';
import { runReducers, type RunEntry } from '../runs/reducers';
import { chartBars, evalReducers, missCutoff, missedTasks, taskRows } from './reducers';

const report: EvalReport = {
  id: 'r1',
  createdAt: '2024-01-01T00:00:00.000Z',
  repoPath: '/repo',
  head: 'a'.repeat(40),
  source: { kind: 'file', file: 't.jsonl' },
  ks: [1, 5],
  methods: ['search', 'bm25'],
  summary: {
    search: { recallAt: { 1: 0.5, 5: 1 }, allGoldAt: { 1: 0.5, 5: 1 }, mrr: 0.75 },
    bm25: { recallAt: { 1: 0, 5: 0.5 }, allGoldAt: { 1: 0, 5: 0.5 }, mrr: 0.3 },
  },
  timing: { totalMs: 10, indexMsMean: 3, methodMsMean: { search: 1, bm25: 1 } },
  tasks: [
    {
      id: 't1', task: 'fix a', parent: 'p', gold: ['a.py'], indexMs: 1,
      results: {
        search: { recallAt: { 1: 1, 5: 1 }, allGoldAt: { 1: 1, 5: 1 }, mrr: 1, ranked: ['a.py'], goldRanks: { 'a.py': 1 }, ms: 1 },
        bm25: { recallAt: { 1: 0, 5: 0 }, allGoldAt: { 1: 0, 5: 0 }, mrr: 0, ranked: ['x.py'], goldRanks: { 'a.py': null }, ms: 1 },
      },
    },
    { id: 't2', task: 'broken', parent: 'zz', gold: ['b.py'], indexMs: 0, results: {}, error: 'parent zz is not a commit' },
  ],
  notes: [],
};

describe('evaluation page reducers', () => {
  it('lays out one bar per k and method, in report order', () => {
    expect(chartBars(report)).toEqual([
      { k: 1, method: 'search', value: 0.5 },
      { k: 1, method: 'bm25', value: 0 },
      { k: 5, method: 'search', value: 1 },
      { k: 5, method: 'bm25', value: 0.5 },
    ]);
  });

  it('lists as misses the tasks with no gold file in the top k, not the failed ones', () => {
    expect(missCutoff(report)).toBe(5);
    expect(missedTasks(report, 'bm25', 5).map((t) => t.id)).toEqual(['t1']);
    expect(missedTasks(report, 'search', 5)).toEqual([]);
  });

  it('shows its own run from the runs store, and takes the report id from the result', () => {
    const followed = evalReducers.started('eval-1', { repoPath: '/repo', commits: 20 });
    // Not in the runs store yet (the answer came first): starting.
    expect(evalReducers.view(followed, null)).toMatchObject({ runId: 'eval-1', status: 'running', done: 0, total: null, message: 'starting' });
    const start: RunInfo = { runId: 'eval-1', kind: 'eval', subject: { repoPath: '/repo' }, title: 'Evaluate /repo · 20 commits', status: 'running', startedAt: '2026-01-01T00:00:00Z' };
    let list = runReducers.started({ runs: [], early: {} }, start);
    list = runReducers.progress(list, { runId: 'eval-2', kind: 'eval', phase: 'tasks', done: 3, total: 9 });
    list = runReducers.progress(list, { runId: 'eval-1', kind: 'eval', phase: 'tasks', done: 2, total: 4, message: 'fix a' });
    const entry = () => list.runs.find((r): r is RunEntry<'eval'> => r.runId === 'eval-1' && r.kind === 'eval') ?? null;
    expect(evalReducers.view(followed, entry())).toMatchObject({ done: 2, total: 4, message: 'fix a', status: 'running' });
    const running = list;
    list = runReducers.finished(running, { runId: 'eval-1', kind: 'eval', status: 'done', result: { reportId: 'r9', file: '/x' } });
    expect(evalReducers.view(followed, entry())).toMatchObject({ status: 'done', reportId: 'r9', error: null });
    list = runReducers.finished(running, { runId: 'eval-1', kind: 'eval', status: 'failed', error: { code: 'NOT_FOUND', message: 'No qualifying commits' } });
    expect(evalReducers.view(followed, entry())).toMatchObject({ status: 'failed', error: 'No qualifying commits', reportId: null });
  });

  it('says what runs: the asked repository and commits, or the title of a run found at load', () => {
    expect(evalReducers.started('eval-1', { repoPath: '/repo', commits: 20 }).what).toBe('/repo · 20 commits');
    const found: RunInfo<'eval'> = { runId: 'eval-3', kind: 'eval', subject: { repoPath: '/srv/koa' }, title: 'Evaluate /srv/koa · 30 commits', status: 'running', startedAt: '2026-01-01T00:00:00Z', progress: { runId: 'eval-3', kind: 'eval', phase: 'tasks', done: 4, total: 30, message: 'fix a' } };
    const adopted = evalReducers.adopt(found);
    expect(evalReducers.view(adopted, { ...found, phases: ['tasks'] })).toMatchObject({ runId: 'eval-3', status: 'running', what: '/srv/koa · 30 commits', done: 4, total: 30, message: 'fix a' });
  });

  it('builds the per-task table: gold ranks by our search and by the reference, our top results, misses', () => {
    const rows = taskRows(report, 5);
    expect(rows[0]).toEqual({
      id: 't1',
      task: 'fix a',
      error: null,
      gold: [{ path: 'a.py', ours: 1, reference: null }],
      top: [{ path: 'a.py', isGold: true }],
      isMiss: false,
    });
    expect(rows[1]).toMatchObject({ id: 't2', error: 'parent zz is not a commit', gold: [{ path: 'b.py', ours: null, reference: null }], top: [], isMiss: false });
    // A gold file ranked below k is a miss; a report without ranks (older or partial) reads as unranked.
    const low = structuredClone(report);
    low.tasks[0]!.results.search!.goldRanks = { 'a.py': 7 };
    expect(taskRows(low, 5)[0]!.isMiss).toBe(true);
    delete (low.tasks[0]!.results.search as { goldRanks?: unknown }).goldRanks;
    expect(taskRows(low, 5)[0]!.gold).toEqual([{ path: 'a.py', ours: null, reference: null }]);
  });
});
