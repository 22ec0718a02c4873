import { describe, expect, it } from 'vitest';
import type { ModelPullProgress } from '../../../../shared/contract';
import { formatBytes, pullLabel, pullReducers } from './reducers';

const progress = (runId: string, doneBytes: number): ModelPullProgress => ({ runId, model: 'qwen3:4b', phase: 'downloading', doneBytes, totalBytes: 1000, percent: doneBytes / 10, bytesPerSecond: 100, etaSeconds: (1000 - doneBytes) / 100 });

describe('pull reducers', () => {
  it('tracks a pull from start to finish', () => {
    let pulls = pullReducers.started({}, 'qwen3:4b', 'r1');
    pulls = pullReducers.progress(pulls, progress('r1', 400));
    expect(pulls['qwen3:4b']).toMatchObject({ status: 'running', progress: { doneBytes: 400 } });
    pulls = pullReducers.finished(pulls, { runId: 'r1', kind: 'pull', status: 'done' });
    expect(pulls['qwen3:4b']?.status).toBe('done');
  });

  it('keeps the bar where it stood when a cancelled pull resumes, and ignores stale runs', () => {
    let pulls = pullReducers.progress({}, progress('r1', 600));
    pulls = pullReducers.finished(pulls, { runId: 'r1', kind: 'pull', status: 'cancelled' });
    pulls = pullReducers.started(pulls, 'qwen3:4b', 'r2');
    expect(pulls['qwen3:4b']).toMatchObject({ runId: 'r2', status: 'running', progress: { doneBytes: 600 } });
    expect(pullReducers.progress(pulls, progress('r1', 700))).toBe(pulls);
    // The resumed pull's manifest step carries no byte totals: the bar stays at 60%.
    pulls = pullReducers.progress(pulls, { ...progress('r2', 0), phase: 'pulling manifest', totalBytes: 0, percent: null });
    expect(pulls['qwen3:4b']).toMatchObject({ runId: 'r2', progress: { doneBytes: 600, percent: 60, phase: 'pulling manifest' } });
    pulls = pullReducers.progress(pulls, progress('r2', 650));
    expect(pulls['qwen3:4b']?.progress).toMatchObject({ doneBytes: 650, percent: 65 });
  });

  it('records a failure message', () => {
    const pulls = pullReducers.finished(pullReducers.started({}, 'm', 'r'), { runId: 'r', kind: 'pull', status: 'failed', error: { code: 'DISK_FULL', message: 'The disk is full' } });
    expect(pulls.m).toMatchObject({ status: 'failed', error: 'The disk is full', resumable: true });
  });

  it('offers Resume after a cancel or a broken download, not for a name the library does not have', () => {
    const finish = (status: 'failed' | 'cancelled', code: string) => pullReducers.finished(pullReducers.started({}, 'm', 'r'), { runId: 'r', kind: 'pull', status, error: { code, message: code } }).m;
    expect(finish('cancelled', 'CANCELLED')?.resumable).toBe(true);
    expect(finish('failed', 'MODEL_ERROR')?.resumable).toBe(true);
    expect(finish('failed', 'MODEL_NOT_FOUND')).toMatchObject({ resumable: false, error: 'MODEL_NOT_FOUND' });
    expect(pullReducers.failedToStart({}, 'qwen9', { code: 'MODEL_NOT_FOUND', message: 'x' }).qwen9?.resumable).toBe(false);
  });
});

describe('labels', () => {
  it('formats bytes and progress', () => {
    expect(formatBytes(2_500_000_000)).toBe('2.5 GB');
    expect(formatBytes(340_000_000)).toBe('340 MB');
    expect(pullLabel(progress('r', 200))).toBe('20% · 200 B of 1.0 KB · 100 B/s · 0m 8s left');
    expect(pullLabel(null)).toBe('Starting…');
  });
});
