import { describe, expect, it } from 'vitest';
import type { RunInfo } from '../../../../shared/contract';
import { jobPercent, jobReducers } from './reducers';

const run: RunInfo = { runId: 'index-1', kind: 'index', title: 'Index repo', status: 'running', startedAt: '2026-01-01T00:00:00Z' };

describe('job reducers', () => {
  it('adds a started job first and replaces a duplicate', () => {
    const jobs = jobReducers.started([{ ...run, runId: 'old' }], run);
    expect(jobs.map((j) => j.runId)).toEqual(['index-1', 'old']);
    expect(jobReducers.started(jobs, { ...run, title: 'again' })).toHaveLength(2);
  });

  it('attaches progress and computes a percentage', () => {
    const jobs = jobReducers.progress([run], { runId: 'index-1', kind: 'index', phase: 'parsing', done: 25, total: 200 });
    expect(jobs[0]?.progress?.phase).toBe('parsing');
    expect(jobPercent(jobs[0] as RunInfo)).toBe(13);
  });

  it('creates a row for progress of a job it never saw start', () => {
    const jobs = jobReducers.progress([], { runId: 'pull-9', kind: 'pull', phase: 'downloading', done: 1 });
    expect(jobs[0]?.runId).toBe('pull-9');
    expect(jobPercent(jobs[0] as RunInfo)).toBeNull();
  });

  it('marks a job finished with its error', () => {
    const jobs = jobReducers.finished([run], { runId: 'index-1', kind: 'index', status: 'failed', error: { code: 'INTERNAL', message: 'boom' } });
    expect(jobs[0]?.status).toBe('failed');
    expect(jobs[0]?.error?.message).toBe('boom');
  });
});
