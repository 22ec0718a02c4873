import type {
  CraBridge,
  Envelope,
  EventKey,
  EventPayload,
  RequestInput,
  RequestKey,
  RequestOutput,
  WsClientMessage,
  WsServerMessage,
} from '../../../shared/contract';
import { deserializeError } from '../../../shared/contract';
import { followRun, type FollowedRun, type RunEvent, type RunStreamIo } from '../../../shared/runStream';

/** The renderer's one way to talk to the engine; it does not know which transport it has. */
export interface Client {
  /** Call a request; resolves with its output or rejects with an AppError. */
  call<K extends RequestKey>(method: K, input: RequestInput<K>): Promise<RequestOutput<K>>;
  subscribe<K extends EventKey>(event: K, callback: (payload: EventPayload<K>) => void): () => void;
  /** Called each time a lost connection is back (the serve WebSocket; IPC never loses it): events pushed meanwhile were missed. */
  onReconnect?(listener: () => void): () => void;
}

/** A bridge whose connection can drop and come back, saying when it came back. */
export type ReconnectingBridge = CraBridge & { onReconnect(listener: () => void): () => void };

/** Wrap a bridge (Electron preload or WebSocket) into the typed client. */
export function clientFromBridge(bridge: CraBridge | ReconnectingBridge): Client {
  return {
    async call(method, input) {
      const envelope = await bridge.invoke(method, input);
      if (envelope.ok) return envelope.value;
      throw deserializeError(envelope.error);
    },
    subscribe: (event, callback) => bridge.subscribe(event, callback),
    ...('onReconnect' in bridge ? { onReconnect: (listener: () => void) => bridge.onReconnect(listener) } : {}),
  };
}

/**
 * The bridge of `cra serve`: one WebSocket to the page's own origin (the token travels as the
 * cookie set when the page was opened), reconnecting with backoff when the connection drops
 * (the server restarted, the network went away). Events pushed while it was away are lost to it:
 * `onReconnect` listeners are called once it is back (followed runs attach again to fill the gap).
 */
export function createWebSocketBridge(url: string): ReconnectingBridge {
  let socket: WebSocket | undefined;
  let nextId = 1;
  let retryMs = 250;
  let opened = false;
  const pending = new Map<number, (envelope: Envelope<unknown>) => void>();
  const queue: string[] = [];
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const reconnected = new Set<() => void>();

  const connect = () => {
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      retryMs = 250;
      for (const message of queue.splice(0)) ws.send(message);
      if (opened) for (const listener of [...reconnected]) listener();
      opened = true;
    };
    ws.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as WsServerMessage;
      if (message.type === 'result') {
        pending.get(message.id)?.(message.envelope);
        pending.delete(message.id);
      } else {
        for (const listener of listeners.get(message.event) ?? []) listener(message.payload);
      }
    };
    ws.onclose = () => {
      for (const [id, resolve] of pending) {
        resolve({ ok: false, error: { code: 'INTERNAL', message: 'Lost the connection to the engine; retrying.' } });
        pending.delete(id);
      }
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 5000);
    };
  };
  connect();

  return {
    invoke(method, input) {
      const id = nextId++;
      const message = JSON.stringify({ type: 'invoke', id, method, input } satisfies WsClientMessage);
      return new Promise((resolve) => {
        pending.set(id, resolve as (envelope: Envelope<unknown>) => void);
        if (socket?.readyState === WebSocket.OPEN) socket.send(message);
        else queue.push(message);
      });
    },
    subscribe(event, callback) {
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
      }
      const wrapped = callback as (payload: unknown) => void;
      set.add(wrapped);
      return () => set.delete(wrapped);
    },
    onReconnect(listener) {
      reconnected.add(listener);
      return () => reconnected.delete(listener);
    },
  };
}

function defaultClient(): Client {
  if (typeof window !== 'undefined' && window.cra) return clientFromBridge(window.cra);
  const protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return clientFromBridge(createWebSocketBridge(`${protocol}//${window.location.host}/ws`));
}

let instance: Client | undefined;

/** The app-wide client, created on first use. */
export function client(): Client {
  return (instance ??= defaultClient());
}

/** Replace the client (renderer unit tests). */
export function setClientForTests(next: Client): void {
  instance = next;
}

/**
 * Follow a run through the app's client (see `followRun`): its events so far from the run's log,
 * then the live ones, each once and in order; a run started in another window, or before a reload,
 * is shown in full, and a dropped connection that comes back fills its gap from the log. `stop` when done (the run ended, the page let it go).
 */
export function followRunEvents(runId: string, onEvent: (event: RunEvent) => void, afterSeq = 0): Promise<FollowedRun> {
  const c = client();
  const onReconnect = c.onReconnect?.bind(c);
  const io: RunStreamIo = { attach: (id, after) => c.call('run/attach', { runId: id, afterSeq: after }), subscribe: (event, listener) => c.subscribe(event, listener), ...(onReconnect ? { onReconnect } : {}) };
  return followRun(io, runId, onEvent, afterSeq);
}
