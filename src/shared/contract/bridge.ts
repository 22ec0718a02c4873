import type { Envelope } from './errors';
import type { EventKey, EventPayload, RequestKey, RequestInput, RequestOutput } from './api';

/**
 * What the preload exposes as `window.cra` and what the serve client implements over WebSocket:
 * exactly two generic functions. The renderer never knows which one it has.
 */
export interface CraBridge {
  invoke<K extends RequestKey>(method: K, input: RequestInput<K>): Promise<Envelope<RequestOutput<K>>>;
  subscribe<K extends EventKey>(event: K, callback: (payload: EventPayload<K>) => void): () => void;
}

/** IPC channel names used by main and preload. */
export const IPC_INVOKE_CHANNEL = 'cra:invoke';
/** Channel on which main forwards every pushed event as `{ event, payload }`. */
export const IPC_EVENT_CHANNEL = 'cra:event';

/** Messages on the serve WebSocket, client → server. */
export type WsClientMessage = { type: 'invoke'; id: number; method: string; input: unknown };
/** Messages on the serve WebSocket, server → client. */
export type WsServerMessage =
  | { type: 'result'; id: number; envelope: Envelope<unknown> }
  | { type: 'event'; event: string; payload: unknown };
