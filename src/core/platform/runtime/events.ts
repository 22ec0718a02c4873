import { deprecatedEventName, type DeprecatedEventKey, type EventKey, type EventPayload } from '../../../shared/contract';

/** What a transport forwards: every event, and a renamed one also under its old name (`RENAMED_EVENTS`). */
type AnyListener = (event: EventKey | DeprecatedEventKey, payload: unknown) => void;
/** Sees an event before its subscribers; returns the payload they get. */
type Stamp = (event: EventKey, payload: unknown) => unknown;

/** Typed publish/subscribe for the contract's pushed events; hosts forward `onAny` to their transport. */
export class EventBus {
  private readonly listeners = new Map<EventKey, Set<(payload: unknown) => void>>();
  private readonly anyListeners = new Set<AnyListener>();
  private stamp: Stamp | undefined;

  /**
   * Publish an event to every subscriber; a throwing subscriber does not stop the others. The
   * payload first goes through the stamp, when one is set (the RunRegistry's run log). An event
   * renamed in issue 23 goes to `onAny` listeners (the transports) under its old name too, the same
   * payload (deprecated, removed after the next release).
   */
  emit<K extends EventKey>(event: K, payload: EventPayload<K>): void {
    const delivered = this.stamp ? this.stamp(event, payload) : payload;
    for (const listener of this.listeners.get(event) ?? []) safeCall(() => listener(delivered));
    for (const listener of this.anyListeners) safeCall(() => listener(event, delivered));
    const old = deprecatedEventName(event);
    if (old !== undefined) for (const listener of this.anyListeners) safeCall(() => listener(old, delivered));
  }

  /**
   * Let one owner see every event before its subscribers and give them its own copy: the
   * RunRegistry numbers the events of a run (`seq`) and keeps them in the run's log.
   */
  stampWith(stamp: Stamp): void {
    if (this.stamp) throw new Error('The event bus already has a stamp (one RunRegistry per bus).');
    this.stamp = stamp;
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
