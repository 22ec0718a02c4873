import type { EventKey, EventPayload } from '../../shared/contract';

type AnyListener = (event: EventKey, payload: unknown) => void;

/** Typed publish/subscribe for the contract's pushed events; hosts forward `onAny` to their transport. */
export class EventBus {
  private readonly listeners = new Map<EventKey, Set<(payload: unknown) => void>>();
  private readonly anyListeners = new Set<AnyListener>();

  /** Publish an event to every subscriber; a throwing subscriber does not stop the others. */
  emit<K extends EventKey>(event: K, payload: EventPayload<K>): void {
    for (const listener of this.listeners.get(event) ?? []) safeCall(() => listener(payload));
    for (const listener of this.anyListeners) safeCall(() => listener(event, payload));
  }

  /** Subscribe to one event; returns the unsubscribe function. */
  on<K extends EventKey>(event: K, listener: (payload: EventPayload<K>) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    const wrapped = listener as (payload: unknown) => void;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  /** Subscribe to every event (transports use this); returns the unsubscribe function. */
  onAny(listener: AnyListener): () => void {
    this.anyListeners.add(listener);
    return () => this.anyListeners.delete(listener);
  }
}

function safeCall(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    console.error('[events] listener failed', error);
  }
}
