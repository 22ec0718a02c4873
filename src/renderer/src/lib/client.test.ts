import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunLogEntry, WsClientMessage, WsServerMessage } from '../../../shared/contract';
import type { RunEvent } from '../../../shared/runStream';
import { clientFromBridge, createWebSocketBridge, followRunEvents, setClientForTests } from './client';

/** The browser's WebSocket, stood in for at the edge: the test opens and closes each socket itself. */
class FakeSocket {
  static readonly OPEN = 1;
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: WsClientMessage[] = [];
  onopen: (() => void) | null = null;
  onclose: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data) as WsClientMessage);
  }
  open() {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
  close() {
    this.readyState = 3;
    this.onclose?.();
  }
  receive(message: WsServerMessage) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
}

/** A run's log on the stand-in server: `push` logs an event and sends it to the socket open now (none while it is down). */
function runOnServer(runId: string) {
  const log: RunLogEntry[] = [];
  const asked: number[] = [];
  const socket = () => FakeSocket.all.at(-1)!;
  return {
    /** The `afterSeq` of each attach answered. */
    asked,
    push(text: string) {
      const entry = { seq: log.length + 1, event: 'chat/token', payload: { runId, conversationId: 'c-1', text, seq: log.length + 1 } } as RunLogEntry;
      log.push(entry);
      if (socket().readyState === FakeSocket.OPEN) socket().receive({ type: 'event', event: entry.event, payload: entry.payload });
    },
    /** Answer the `run/attach` requests the open socket has not been answered yet. */
    answerAttaches() {
      const s = socket();
      for (const message of s.sent.splice(0)) {
        if (message.method !== 'run/attach') continue;
        const { afterSeq } = message.input as { afterSeq: number };
        asked.push(afterSeq);
        const events = log.filter((e) => e.seq > afterSeq);
        s.receive({ type: 'result', id: message.id, envelope: { ok: true, value: { run: { runId, kind: 'chat', status: 'running' }, events, firstSeq: 1, lastSeq: log.length } } });
      }
    },
  };
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

beforeEach(() => {
  FakeSocket.all = [];
  vi.stubGlobal('WebSocket', FakeSocket);
  vi.useFakeTimers({ toFake: ['setTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the serve WebSocket bridge', () => {
  it('calls its reconnect listeners when a dropped socket is open again, not on the first open', () => {
    const bridge = createWebSocketBridge('ws://localhost/ws');
    const calls: string[] = [];
    bridge.onReconnect(() => calls.push('back'));
    FakeSocket.all[0]!.open();
    expect(calls).toEqual([]);
    FakeSocket.all[0]!.close();
    vi.advanceTimersByTime(250);
    FakeSocket.all[1]!.open();
    expect(calls).toEqual(['back']);
  });

  it('a followed run whose socket drops and comes back gets the events of the gap, once each, in order', async () => {
    setClientForTests(clientFromBridge(createWebSocketBridge('ws://localhost/ws')));
    FakeSocket.all[0]!.open();
    const run = runOnServer('chat-1');
    run.push('a');
    const seen: RunEvent[] = [];
    const following = followRunEvents('chat-1', (e) => seen.push(e));
    run.answerAttaches();
    const followed = await following;
    run.push('b');
    FakeSocket.all[0]!.close();
    run.push('c');
    run.push('d');
    vi.advanceTimersByTime(250);
    FakeSocket.all[1]!.open();
    // A live event the server pushes on the new socket before the attach is answered waits for the gap.
    run.push('e');
    run.answerAttaches();
    await settle();
    run.push('f');
    followed.stop();
    run.push('g');
    const texts = seen.map((e) => `${e.seq}:${e.event === 'chat/token' ? e.payload.text : e.event}`);
    expect(texts).toEqual(['1:a', '2:b', '3:c', '4:d', '5:e', '6:f']);
    expect(run.asked).toEqual([0, 2]);
  });
});
