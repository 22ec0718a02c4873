import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/contract';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { pullModel } from './pull';
import { PullTracker, type PullSnapshot } from './pullProgress';

describe('PullTracker', () => {
  it('sums bytes over layers and computes speed and ETA', () => {
    const t = new PullTracker(0);
    t.update({ status: 'pulling manifest' }, 0);
    t.update({ status: 'pulling aaa', digest: 'a', total: 1000, completed: 0 }, 0);
    t.update({ status: 'pulling bbb', digest: 'b', total: 3000, completed: 0 }, 0);
    t.update({ status: 'pulling aaa', digest: 'a', total: 1000, completed: 500 }, 1000);
    t.update({ status: 'pulling aaa', digest: 'a', total: 1000, completed: 1000 }, 2000);
    const s = t.snapshot();
    expect(s).toMatchObject({ phase: 'downloading', doneBytes: 1000, totalBytes: 4000, percent: 25 });
    expect(s.bytesPerSecond).toBe(500);
    expect(s.etaSeconds).toBe(6);
  });

  it('starts a resumed layer at its offset, and measures idleness', () => {
    const t = new PullTracker(0);
    t.update({ status: 'pulling aaa', digest: 'a', total: 1000, completed: 700 }, 0);
    expect(t.snapshot()).toMatchObject({ doneBytes: 700, percent: 70, bytesPerSecond: 0, etaSeconds: null });
    expect(t.idleMs(5000)).toBe(5000);
  });
});

describe('pullModel against the test server', () => {
  let server: OllamaTestServer;
  beforeAll(async () => {
    server = await OllamaTestServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.installed.clear();
    server.partial.clear();
    server.requests.length = 0;
    server.script.pull = { chunkBytes: 100_000, delayMs: 2 };
    server.offer('qwen3:0.6b', [1_000_000, 400_000]);
  });

  const run = (options: { signal?: AbortSignal; stallMs?: number; onProgress?: (s: PullSnapshot) => void; maxRetries?: number; now?: () => number } = {}) => {
    const seen: Array<PullSnapshot & { retry?: number }> = [];
    const done = pullModel(server.url, 'qwen3:0.6b', {
      signal: options.signal ?? new AbortController().signal,
      stallMs: options.stallMs ?? 5000,
      maxRetries: options.maxRetries,
      throttleMs: 0,
      now: options.now,
      onProgress: (s) => {
        seen.push(s);
        options.onProgress?.(s);
      },
    });
    return { done, seen };
  };

  it('pulls with progress summed over layers and installs the model', async () => {
    const { done, seen } = run();
    await expect(done).resolves.toEqual({ attempts: 1 });
    const last = seen[seen.length - 1];
    expect(last).toMatchObject({ doneBytes: 1_400_000, totalBytes: 1_400_000, percent: 100, phase: 'success' });
    const done1 = seen.map((s) => s.doneBytes);
    expect(done1).toEqual([...done1].sort((a, b) => a - b));
    expect(server.installed.has('qwen3:0.6b')).toBe(true);
  });

  it('reconnects after an interrupted connection and resumes where it stopped', async () => {
    server.script.pull.interruptAfterBytes = 600_000;
    const { done, seen } = run();
    await expect(done).resolves.toEqual({ attempts: 2 });
    // After reconnecting, progress continues from the resumed offset: it never drops back to zero.
    const retried = seen.filter((s) => s.retry === 1);
    expect(retried.length).toBeGreaterThan(0);
    expect(retried.every((s) => s.doneBytes >= 500_000)).toBe(true);
    expect(retried[retried.length - 1]?.doneBytes).toBe(1_400_000);
    const pulls = server.requests.filter((r) => r.path === '/api/pull');
    expect(pulls).toHaveLength(2);
    expect(server.installed.has('qwen3:0.6b')).toBe(true);
  });

  /**
   * A clock that moves only while the server stalls (50 ms each time the client reads it), so a
   * slow machine never looks like a stall and a stall is always seen.
   */
  const stallClock = () => {
    let time = 0;
    let stalled = false;
    server.script.pull.onStart = () => (stalled = false);
    server.script.pull.onStall = () => (stalled = true);
    return () => (stalled ? (time += 50) : time);
  };

  it('reconnects when the download stalls', async () => {
    server.script.pull.stallAfterBytes = 300_000;
    const { done, seen } = run({ stallMs: 150, now: stallClock() });
    await expect(done).resolves.toEqual({ attempts: 2 });
    expect(seen.some((s) => s.retry === 1)).toBe(true);
  });

  it('cancels, keeps the partial layers, and a second pull resumes', async () => {
    server.script.pull.delayMs = 5;
    const controller = new AbortController();
    const first = run({ signal: controller.signal, onProgress: (s) => s.doneBytes >= 500_000 && controller.abort() });
    await expect(first.done).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(server.installed.has('qwen3:0.6b')).toBe(false);
    const stoppedAt = first.seen[first.seen.length - 1]?.doneBytes ?? 0;
    server.script.pull.delayMs = 2;
    const second = run();
    await second.done;
    const firstReport = second.seen.find((s) => s.totalBytes > 0);
    expect(firstReport?.doneBytes).toBeGreaterThanOrEqual(stoppedAt - 100_000);
    expect(firstReport?.doneBytes).toBeGreaterThan(0);
    expect(server.installed.has('qwen3:0.6b')).toBe(true);
  });

  it('says clearly when the model does not exist', async () => {
    const error = await pullModel(server.url, 'no-such:model', { signal: new AbortController().signal, onProgress: () => undefined }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'MODEL_NOT_FOUND' });
    expect((error as AppError).message).toContain("no model named 'no-such:model'");
  });

  it('says clearly when the disk is full', async () => {
    server.script.pull.diskFullAfterBytes = 200_000;
    await expect(run().done).rejects.toMatchObject({ code: 'DISK_FULL', message: expect.stringMatching(/disk is full.*resume/) });
  });

  it('gives up after repeated interruptions with a message that says how to resume', async () => {
    const now = stallClock();
    const markStalled = server.script.pull.onStall!;
    let stalls = 0;
    server.script.pull.stallAfterBytes = 100_000;
    server.script.pull.onStall = () => {
      markStalled();
      // The reconnection stalls again.
      if (++stalls === 1) server.script.pull.stallAfterBytes = 100_000;
    };
    const { done } = run({ stallMs: 100, maxRetries: 1, now });
    await expect(done).rejects.toMatchObject({ code: 'MODEL_ERROR', message: expect.stringMatching(/kept stalling \(2 tries\).*Press Pull again to resume/) });
    expect(stalls).toBe(2);
  });
});
