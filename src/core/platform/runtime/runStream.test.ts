import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { RunAttachment } from '../../../shared/contract';
import { followRun, type RunEvent, type RunStreamIo } from '../../../shared/runStream';
import { createInMemoryBridge } from '../../app/contract/inMemoryTransport';
import { createTempCore } from '../../testing/tempCore';
import { FINISHED_LOG_MS, FINISHED_LOGS_KEPT, RUN_LOG_LIMITS, RunEventLog } from './eventLog';
import { EventBus } from './events';
import { RunRegistry } from './runs';

const temp = createTempCore();
const bridge = createInMemoryBridge(temp.core);
afterAll(() => temp.cleanup());
afterEach(() => vi.useRealTimers());

/** A client over the in-memory transport (JSON copies, as over IPC or WebSocket); `beforeAnswer`/`afterAnswer` run around the attach request. */
function client(hooks: { beforeAnswer?: () => void; afterAnswer?: () => void } = {}): RunStreamIo {
  return {
    attach: async (runId, afterSeq) => {
      hooks.beforeAnswer?.();
      const envelope = await bridge.invoke('run/attach', { runId, afterSeq });
      if (!envelope.ok) throw new Error(envelope.error.message);
      hooks.afterAnswer?.();
      return envelope.value;
    },
    subscribe: (event, listener) => bridge.subscribe(event, listener),
  };
}

/** A chat-like run that streams the tokens it is handed, one `say` at a time, until `end`. */
function scriptedRun() {
  let next: ((text: string | null) => void) | undefined;
  const said = () => new Promise<string | null>((resolve) => (next = resolve));
  const { runId, run, done } = temp.core.runs.start(
    'chat',
    'A scripted answer',
    async ({ runId }) => {
      for (let text = await said(); text !== null; text = await said()) temp.core.events.emit('chat/token', { runId, conversationId: 'c-1', text });
      return { conversationId: 'c-1', messageId: 1 };
    },
    { repoId: 'r-1', conversationId: 'c-1', question: 'What?' },
  );
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    runId,
    run,
    done,
    say: async (text: string) => {
      await settle();
      next?.(text);
      await settle();
    },
    end: async () => {
      await settle();
      next?.(null);
      await done;
    },
    /** Emit a token at once (the body's loop may be between two awaits). */
    emitNow: (text: string) => temp.core.events.emit('chat/token', { runId, conversationId: 'c-1', text }),
  };
}

/**
 * A client whose connection the test drops and brings back: while it is down the events pushed to
 * it are lost (as on a closed WebSocket) and an attach fails; `reconnect` calls its reconnect
 * listeners, as the serve WebSocket does once it is open again.
 */
function droppingClient() {
  let down = false;
  const reconnected = new Set<() => void>();
  const attaches: number[] = [];
  const io: RunStreamIo = {
    attach: async (runId, afterSeq) => {
      attaches.push(afterSeq);
      if (down) throw new Error('Lost the connection to the engine; retrying.');
      const envelope = await bridge.invoke('run/attach', { runId, afterSeq });
      if (!envelope.ok) throw new Error(envelope.error.message);
      return envelope.value;
    },
    subscribe: (event, listener) => bridge.subscribe(event, (payload) => (down ? undefined : listener(payload))),
    onReconnect: (listener) => {
      reconnected.add(listener);
      return () => reconnected.delete(listener);
    },
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    io,
    attaches,
    drop: () => (down = true),
    /** Back up: the reconnect listeners run and their attach is answered before this resolves. */
    reconnect: async () => {
      down = false;
      for (const listener of [...reconnected]) listener();
      await settle();
      await settle();
    },
    /** A reconnect whose attach fails (the connection dropped again at once). */
    flap: async () => {
      for (const listener of [...reconnected]) listener();
      await settle();
    },
  };
}

const shape = (events: RunEvent[]) => events.map((e) => `${e.seq}:${e.event}${e.event === 'chat/token' ? `:${e.payload.text}` : ''}`);

describe('attaching to a run', () => {
  it('a second client attaching mid-run gets the whole history, then the live events, in order, none twice or missing', async () => {
    const first: RunEvent[] = [];
    const script = scriptedRun();
    const watching = await followRun(client(), script.runId, (e) => first.push(e));
    await script.say('a');
    await script.say('b');
    const second: RunEvent[] = [];
    // One token is emitted after the second client subscribed but before its attach was answered
    // (so it is in the history and live), one after the answer and before the history was handed over.
    const late = await followRun(client({ beforeAnswer: () => script.emitNow('c'), afterAnswer: () => script.emitNow('d') }), script.runId, (e) => second.push(e));
    expect(late.attachment.run).toMatchObject({ runId: script.runId, status: 'running', kind: 'chat' });
    expect(late.attachment.lastSeq).toBe(4);
    await script.say('e');
    await script.end();
    watching.stop();
    late.stop();
    expect(shape(second)).toEqual(['1:run/started', '2:chat/token:a', '3:chat/token:b', '4:chat/token:c', '5:chat/token:d', '6:chat/token:e', '7:run/finished']);
    expect(shape(second)).toEqual(shape(first));
  });

  it('a client that has some events attaches after them; a finished run replays with its result', async () => {
    const script = scriptedRun();
    await script.say('a');
    await script.say('b');
    await script.end();
    const rest: RunEvent[] = [];
    const again = await followRun(client(), script.runId, (e) => rest.push(e), 2);
    again.stop();
    expect(shape(rest)).toEqual(['3:chat/token:b', '4:run/finished']);
    expect(again.attachment).toMatchObject({ run: { status: 'done', finishedAt: expect.any(String) }, result: { conversationId: 'c-1', messageId: 1 }, firstSeq: 1, lastSeq: 4 });
  });

  it('a client whose connection drops and comes back mid-run gets the events of the gap from the log, once each, in order', async () => {
    const seen: RunEvent[] = [];
    const script = scriptedRun();
    const link = droppingClient();
    const followed = await followRun(link.io, script.runId, (e) => seen.push(e));
    await script.say('a');
    link.drop();
    await script.say('b');
    await script.say('c');
    expect(shape(seen)).toEqual(['1:run/started', '2:chat/token:a']);
    await link.flap();
    await script.say('d');
    await link.reconnect();
    await script.say('e');
    // A reconnect with nothing missed attaches again and delivers nothing twice.
    await link.reconnect();
    await script.end();
    followed.stop();
    await link.reconnect();
    expect(shape(seen)).toEqual(['1:run/started', '2:chat/token:a', '3:chat/token:b', '4:chat/token:c', '5:chat/token:d', '6:chat/token:e', '7:run/finished']);
    // Each attach asked from the last seq delivered; none after `stop`.
    expect(link.attaches).toEqual([0, 2, 2, 6]);
  });

  it('live events that arrive while the reconnect attach is on its way wait for the history of the gap', async () => {
    const seen: RunEvent[] = [];
    const script = scriptedRun();
    const link = droppingClient();
    const io: RunStreamIo = { ...link.io, attach: async (runId, afterSeq) => {
      // The run goes on between the request and its answer: 'c' is pushed live (seq 4) and is in the answer too.
      if (afterSeq > 0) script.emitNow('c');
      return link.io.attach(runId, afterSeq);
    } };
    const followed = await followRun(io, script.runId, (e) => seen.push(e));
    await script.say('a');
    link.drop();
    await script.say('b');
    await link.reconnect();
    await script.end();
    followed.stop();
    expect(shape(seen)).toEqual(['1:run/started', '2:chat/token:a', '3:chat/token:b', '4:chat/token:c', '5:run/finished']);
  });

  it('an unknown run is NOT_FOUND', async () => {
    const envelope = await bridge.invoke('run/attach', { runId: 'chat-00000000' });
    expect(envelope).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringContaining('chat-00000000') } });
  });
});

describe('the bounds of the run logs', () => {
  it('keeps at most maxEvents events and maxChars characters per run, dropping the oldest first', () => {
    const log = new RunEventLog({ maxEvents: 3, maxChars: 1000 });
    for (let i = 1; i <= 5; i++) log.append('chat/token', { runId: 'x', text: String(i), seq: i });
    expect(log.since().map((e) => e.seq)).toEqual([3, 4, 5]);
    expect([log.firstSeq, log.lastSeq]).toEqual([3, 5]);
    const big = new RunEventLog({ maxEvents: 100, maxChars: 250 });
    for (let i = 1; i <= 5; i++) big.append('chat/token', { text: 'x'.repeat(90), seq: i });
    expect(big.size.chars).toBeLessThanOrEqual(250);
    expect(big.since().map((e) => e.seq)).toEqual([4, 5]);
    // The product's bounds are said in code and sane: a long chat answer fits whole.
    expect(RUN_LOG_LIMITS.maxEvents).toBeGreaterThanOrEqual(10_000);
  });

  it(`keeps the logs of the newest ${FINISHED_LOGS_KEPT} finished runs, each for ${FINISHED_LOG_MS / 60_000} minutes`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runs = new RunRegistry(new EventBus());
    const ids: string[] = [];
    for (let i = 0; i <= FINISHED_LOGS_KEPT; i++) {
      vi.setSystemTime(new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
      const { runId, done } = runs.start('pull', `run ${i}`, async () => ({ model: 'x' }), { model: 'x' });
      await done;
      ids.push(runId);
    }
    const events = (id: string): RunAttachment['events'] => runs.attach(id).events;
    expect(events(ids[0]!)).toEqual([]);
    expect(runs.attach(ids[0]!)).toMatchObject({ run: { status: 'done' }, firstSeq: 3, lastSeq: 2 });
    expect(events(ids[1]!).map((e) => e.event)).toEqual(['run/started', 'run/finished']);
    vi.advanceTimersByTime(FINISHED_LOG_MS);
    expect(events(ids[FINISHED_LOGS_KEPT]!)).toEqual([]);
  });
});
