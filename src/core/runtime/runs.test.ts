import { describe, expect, it } from 'vitest';
import type { RunFinished, RunProgress } from '../../shared/contract';
import { EventBus } from './events';
import { PROGRESS_INTERVAL_MS, RunRegistry, throwIfAborted } from './runs';

describe('RunRegistry', () => {
  it('streams progress tagged with the run id and reports the result', async () => {
    const bus = new EventBus();
    const progress: RunProgress[] = [];
    const finished: RunFinished[] = [];
    bus.on('run/progress', (p) => progress.push(p));
    bus.on('run/finished', (f) => finished.push(f));
    const runs = new RunRegistry(bus);
    const { runId, done } = runs.start('index', 'Index x', async (ctx) => {
      ctx.progress({ phase: 'parsing', done: 1, total: 2 });
      ctx.progress({ phase: 'parsing', done: 2, total: 2 });
      return 7;
    });
    await expect(done).resolves.toBe(7);
    expect(progress.map((p) => [p.runId, p.done])).toEqual([
      [runId, 1],
      [runId, 2],
    ]);
    expect(finished).toEqual([{ runId, kind: 'index', status: 'done', result: 7, error: undefined }]);
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
    const { runId, done } = runs.start('index', 'Index x', async (ctx) => {
      for (let i = 1; i <= 500; i++) ctx.progress({ phase: 'parsing', done: i, total: 1000 });
      burstDone();
      await paused;
      ctx.progress({ phase: 'parsing', done: 1000, total: 1000 });
      ctx.progress({ phase: 'references', done: 0 });
      ctx.progress({ phase: 'references', done: 1 });
      return 1;
    });
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
    const { runId, done } = runs.start('loop', 'Loop', async (ctx) => {
      for (;;) {
        throwIfAborted(ctx.signal);
        iterations++;
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(runs.cancel(runId)).toBe(true);
    await expect(done).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(runs.list()[0]?.status).toBe('cancelled');
    expect(runs.cancel(runId)).toBe(false);
    expect(iterations).toBeGreaterThan(0);
  });

  it('records a failure with its message', async () => {
    const runs = new RunRegistry(new EventBus());
    const { done } = runs.start('x', 'X', async () => {
      throw new Error('disk on fire');
    });
    await expect(done).rejects.toThrow('disk on fire');
    expect(runs.list()[0]).toMatchObject({ status: 'failed', error: { code: 'INTERNAL' } });
  });
});
