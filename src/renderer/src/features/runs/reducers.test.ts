import { describe, expect, it } from 'vitest';
import type { IndexSummary, RunInfo } from '../../../../shared/contract';
import { runPercent, runReducers, type RunsList } from './reducers';

const run: RunInfo = { runId: 'index-1', kind: 'index', subject: { repoId: 'shop-1' }, title: 'Index repo', status: 'running', startedAt: '2026-01-01T00:00:00Z' };
const empty: RunsList = { runs: [], early: {} };

describe('run reducers', () => {
  it('adds a started run first and replaces a duplicate', () => {
    const list = runReducers.started(runReducers.started(empty, { ...run, runId: 'old' }), run);
    expect(list.runs.map((j) => j.runId)).toEqual(['index-1', 'old']);
    expect(runReducers.started(list, { ...run, title: 'again' }).runs).toHaveLength(2);
  });

  it('attaches progress, remembers its phases and computes a percentage', () => {
    let list = runReducers.started(empty, run);
    list = runReducers.progress(list, { runId: 'index-1', kind: 'index', phase: 'scanning', done: 3 });
    list = runReducers.progress(list, { runId: 'index-1', kind: 'index', phase: 'parsing', done: 25, total: 200 });
    expect(list.runs[0]?.progress?.phase).toBe('parsing');
    expect(list.runs[0]?.phases).toEqual(['scanning', 'parsing']);
    expect(runPercent(list.runs[0] as RunInfo)).toBe(13);
  });

  it('keeps progress of a run it never saw start and gives it to the run when it is known', () => {
    const list = runReducers.progress(empty, { runId: 'pull-9', kind: 'pull', phase: 'downloading', done: 1, total: 4 });
    expect(list.runs).toEqual([]);
    const known = runReducers.started(list, { runId: 'pull-9', kind: 'pull', subject: { model: 'm' }, title: 'Pull m', status: 'running', startedAt: '2026-01-01T00:00:00Z' });
    expect(known.runs[0]).toMatchObject({ runId: 'pull-9', subject: { model: 'm' }, progress: { phase: 'downloading', done: 1 } });
    expect(runPercent(known.runs[0] as RunInfo)).toBe(25);
    expect(known.early).toEqual({});
  });

  it('upserts a progress tree: a node updated by id, its children merged, new nodes appended, others kept', () => {
    let list = runReducers.started(empty, { runId: 'eval-1', kind: 'eval', subject: { repoPath: '/r' }, title: 'Evaluate /r', status: 'running', startedAt: '2026-01-01T00:00:00Z' });
    list = runReducers.progress(list, {
      runId: 'eval-1',
      kind: 'eval',
      phase: 'parts',
      done: 0,
      steps: [
        { id: 'p1', label: 'Part 1', status: 'running', children: [{ id: 's1', label: 'Step 1', status: 'running' }] },
        { id: 'p2', label: 'Part 2', status: 'pending' },
      ],
    });
    list = runReducers.progress(list, { runId: 'eval-1', kind: 'eval', phase: 'parts', done: 1, steps: [{ id: 'p1', label: 'Part 1', status: 'done', children: [{ id: 's1', label: 'Step 1', status: 'done', done: 2, total: 2 }, { id: 's2', label: 'Step 2', status: 'done' }] }] });
    expect(list.runs[0]?.progress?.steps).toEqual([
      { id: 'p1', label: 'Part 1', status: 'done', children: [{ id: 's1', label: 'Step 1', status: 'done', done: 2, total: 2 }, { id: 's2', label: 'Step 2', status: 'done' }] },
      { id: 'p2', label: 'Part 2', status: 'pending' },
    ]);
    expect(list.runs[0]?.progress?.done).toBe(1);
  });

  it('marks a run finished with its error, or its typed result', () => {
    const failed = runReducers.finished(runReducers.started(empty, run), { runId: 'index-1', kind: 'index', status: 'failed', error: { code: 'INTERNAL', message: 'boom' } });
    expect(failed.runs[0]).toMatchObject({ status: 'failed', error: { message: 'boom' } });
    const summary = { files: 1, parsed: 1, durationMs: 5, phaseMs: {} } as IndexSummary;
    const done = runReducers.finished(runReducers.started(empty, run), { runId: 'index-1', kind: 'index', status: 'done', result: summary });
    const entry = done.runs[0];
    expect(entry?.kind === 'index' ? entry.result?.durationMs : null).toBe(5);
    // A start that arrives after the end (or a listed copy) keeps the end.
    expect(runReducers.started(done, run).runs[0]).toMatchObject({ status: 'done', result: summary });
  });
});
