import { describe, expect, it } from 'vitest';
import type { RunFinished, RunProgress } from '../../../shared/contract';
import { EventBus } from './events';
import { activeRun, PROGRESS_INTERVAL_MS, RunRegistry, throwIfAborted } from './runs';

describe('RunRegistry', () => {
  it('streams progress tagged with the run id and reports the result', async () => {
    const bus = new EventBus();
    const progress: RunProgress[] = [];
    const finished: RunFinished[] = [];
    bus.on('run/progress', (p) => progress.push(p));
    bus.on('run/finished', (f) => finished.push(f));
    const runs = new RunRegistry(bus);
    const { runId, done } = runs.start('pull', 'Pull x', async (ctx) => {
      ctx.progress({ phase: 'parsing', done: 1, total: 2 });
      ctx.progress({ phase: 'parsing', done: 2, total: 2 });
      return { model: 'x' };
    }, { model: 'x' });
    await expect(done).resolves.toEqual({ model: 'x' });
    expect(progress.map((p) => [p.runId, p.done])).toEqual([
      [runId, 1],
      [runId, 2],
    ]);
    // Events 1–3: run/started and the two progress reports; the end is the run's fourth event.
    expect(finished).toEqual([{ runId, kind: 'pull', status: 'done', result: { model: 'x' }, error: undefined, seq: 4 }]);
    expect(runs.list()[0]?.status).toBe('done');
  });

  it('forwards a burst of progress at a bounded rate: phase changes and completed counts at once, the latest update after a pause', async () => {
    const bus = new EventBus();
    const progress: RunProgress[] = [];
    bus.on('run/progress', (p) => progress.push(p));
    const runs = new RunRegistry(bus);
    let release!: () => void;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let burstDone!: () => void;
    const burst = new Promise<void>((resolve) => (burstDone = resolve));
    const { runId, done } = runs.start('pull', 'Pull x', async (ctx) => {
      for (let i = 1; i <= 500; i++) ctx.progress({ phase: 'parsing', done: i, total: 1000 });
      burstDone();
      await paused;
      ctx.progress({ phase: 'parsing', done: 1000, total: 1000 });
      ctx.progress({ phase: 'references', done: 0 });
      ctx.progress({ phase: 'references', done: 1 });
      return { model: 'x' };
    }, { model: 'x' });
    await burst; // no timer can run before this continuation
    expect(progress.map((p) => p.done)).toEqual([1]);
    expect(runs.list()[0]?.progress).toMatchObject({ runId, phase: 'parsing', done: 500 });
    await new Promise((resolve) => setTimeout(resolve, PROGRESS_INTERVAL_MS + 50));
    expect(progress.map((p) => p.done)).toEqual([1, 500]);
    release();
    await done;
    // The last update of a phase that ends within the interval is not forwarded; the run's end is.
    expect(progress.map((p) => `${p.phase} ${p.done}`)).toEqual(['parsing 1', 'parsing 500', 'parsing 1000', 'references 0']);
    await new Promise((resolve) => setTimeout(resolve, PROGRESS_INTERVAL_MS + 50));
    expect(progress).toHaveLength(4);
  });

  it('cancels through the AbortSignal that reaches the job loop', async () => {
    const runs = new RunRegistry(new EventBus());
    let iterations = 0;
    const { runId, done } = runs.start('pull', 'Loop', async (ctx) => {
      for (;;) {
        throwIfAborted(ctx.signal);
        iterations++;
        await new Promise((r) => setTimeout(r, 5));
      }
    }, { model: 'loop' });
    await new Promise((r) => setTimeout(r, 30));
    expect(runs.cancel(runId)).toBe(true);
    await expect(done).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(runs.list()[0]?.status).toBe('cancelled');
    expect(runs.cancel(runId)).toBe(false);
    expect(iterations).toBeGreaterThan(0);
  });

  it('records a failure with its message', async () => {
    const runs = new RunRegistry(new EventBus());
    const { done } = runs.start('pull', 'X', async () => {
      throw new Error('disk on fire');
    }, { model: 'x' });
    await expect(done).rejects.toThrow('disk on fire');
    expect(runs.list()[0]).toMatchObject({ status: 'failed', error: { code: 'INTERNAL' } });
  });

  it('keeps a progress tree: an update naming one node merges into the tree, and every event carries all of it', async () => {
    const bus = new EventBus();
    const progress: RunProgress[] = [];
    bus.on('run/progress', (p) => progress.push(p));
    const runs = new RunRegistry(bus);
    const { runId, done } = runs.start('eval', 'Plan-like', async (ctx) => {
      ctx.progress({
        phase: 'parts',
        done: 0,
        total: 2,
        steps: [
          { id: 'p1', label: 'Part 1', status: 'running', children: [{ id: 's1', label: 'Step 1', status: 'running', done: 0, total: 3 }] },
          { id: 'p2', label: 'Part 2', status: 'pending' },
        ],
      });
      // Only the step that moved, in a new phase so it is forwarded at once.
      ctx.progress({ phase: 'passes', done: 0, total: 2, steps: [{ id: 'p1', label: 'Part 1', status: 'running', children: [{ id: 's1', label: 'Step 1', status: 'done', done: 3, total: 3 }, { id: 's2', label: 'Step 2', status: 'running' }] }] });
      return { reportId: 'r', file: 'f' };
    }, { repoPath: '/repo' });
    await done;
    expect(progress).toHaveLength(2);
    expect(progress[1]?.steps).toEqual([
      {
        id: 'p1',
        label: 'Part 1',
        status: 'running',
        children: [
          { id: 's1', label: 'Step 1', status: 'done', done: 3, total: 3 },
          { id: 's2', label: 'Step 2', status: 'running' },
        ],
      },
      { id: 'p2', label: 'Part 2', status: 'pending' },
    ]);
    // The flat fields still work beside the tree.
    expect(runs.list().find((r) => r.runId === runId)?.progress).toMatchObject({ kind: 'eval', phase: 'passes', done: 0, total: 2 });
  });

  it('types a run by its kind: subject in the run list, the result of wait, and a wrong kind refused', async () => {
    const runs = new RunRegistry(new EventBus());
    const { runId } = runs.start('pull', 'Pull m', async () => ({ model: 'm' }), { model: 'm' });
    const result = await runs.wait(runId, 'pull');
    expect(result.model).toBe('m');
    expect(runs.list()[0]).toMatchObject({ kind: 'pull', subject: { model: 'm' } });
    await expect(runs.wait(runId, 'index')).rejects.toMatchObject({ code: 'VALIDATION', message: `Run ${runId} is a pull run, not index.` });
    // @ts-expect-error a pull run names a model, not a repository
    runs.start('pull', 'wrong', async () => ({ model: 'm' }), { repoId: 'r' });
    // @ts-expect-error an index run returns an IndexSummary
    runs.start('index', 'wrong', async () => ({ model: 'm' }), { repoId: 'r' });
  });

  it('tells code inside a job which run it belongs to, and nothing outside one', async () => {
    const runs = new RunRegistry(new EventBus());
    expect(activeRun()).toBeUndefined();
    let inside: string | undefined;
    const { runId, done } = runs.start('pull', 'Pull m', async () => {
      await new Promise((r) => setTimeout(r, 1));
      inside = activeRun()?.runId;
      return { model: 'm' };
    }, { model: 'm' });
    await done;
    expect(inside).toBe(runId);
    expect(activeRun()).toBeUndefined();
  });
});
