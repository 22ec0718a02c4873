import type { EventKey, EventPayload, RunAttachment, RunLogEntry } from './contract';

/** Every event that belongs to a run (its payload has the run's `runId` and, from the registry, its `seq`). */
export const RUN_EVENT_KEYS = [
  'run/started',
  'run/progress',
  'run/finished',
  'chat/sources',
  'chat/token',
  'chat/done',
  'retrieval/package',
  'retrieval/judgment',
  'models/pullProgress',
] as const satisfies readonly EventKey[];

/** An event of a run: its key, its payload, its place in the run's log. */
export type RunEvent = { [K in (typeof RUN_EVENT_KEYS)[number]]: { event: K; payload: EventPayload<K>; seq: number } }[(typeof RUN_EVENT_KEYS)[number]];

/**
 * What following a run needs of a client: the `run/attach` request and event subscriptions (any
 * transport); a transport that can lose its connection and get it back (the serve WebSocket) says
 * when it did through `onReconnect`, the events pushed in between being lost to it.
 */
export interface RunStreamIo {
  attach(runId: string, afterSeq: number): Promise<RunAttachment>;
  subscribe<K extends EventKey>(event: K, listener: (payload: EventPayload<K>) => void): () => void;
  onReconnect?(listener: () => void): () => void;
}

/** A run being followed: what the attach answered, and how to stop. */
export interface FollowedRun {
  attachment: RunAttachment;
  stop(): void;
}

/**
 * Follow a run from where the client is (`afterSeq`, 0: from its start): subscribe to its live
 * events first, then attach (the run's record and its logged events), hand over the history and
 * then every live event, each exactly once and in seq order — an event that arrived while the
 * attach was on its way is in both and is dropped the second time. The history has a gap only when
 * the run's bounded log dropped its oldest events (`attachment.firstSeq > afterSeq + 1`). When the
 * transport reconnects, the run is attached to again after the last seq delivered, so the events
 * pushed while it was away come from the log, in order, none twice; an attach that fails then is
 * left to the next reconnect.
 */
export async function followRun(io: RunStreamIo, runId: string, onEvent: (event: RunEvent) => void, afterSeq = 0): Promise<FollowedRun> {
  let last = afterSeq;
  // Live events held while an attach is on its way (its history goes first); null: deliver at once.
  let early: RunLogEntry[] | null = [];
  let attempt = 0;
  let stopped = false;
  const deliver = (entry: RunLogEntry) => {
    if (entry.seq <= last) return;
    last = entry.seq;
    onEvent(entry as RunEvent);
  };
  /** Attach after the last seq delivered and hand over the history, then the live events held meanwhile; only the newest attempt delivers. */
  const catchUp = async (): Promise<RunAttachment> => {
    const mine = ++attempt;
    early ??= [];
    try {
      const attachment = await io.attach(runId, last);
      if (mine === attempt && !stopped) for (const entry of attachment.events) deliver(entry);
      return attachment;
    } finally {
      if (mine === attempt && early) {
        const held = early;
        early = null;
        if (!stopped) for (const entry of held) deliver(entry);
      }
    }
  };
  const stops = RUN_EVENT_KEYS.map((event) =>
    io.subscribe(event, (payload) => {
      const { runId: id, seq } = payload as { runId?: unknown; seq?: unknown };
      if (id !== runId || typeof seq !== 'number') return;
      const entry = { seq, event, payload };
      if (early) early.push(entry);
      else deliver(entry);
    }),
  );
  const stop = () => {
    stopped = true;
    stops.forEach((s) => s());
  };
  let attachment: RunAttachment;
  try {
    attachment = await catchUp();
  } catch (error) {
    stop();
    throw error;
  }
  const unhook = io.onReconnect?.(() => void catchUp().catch(() => undefined));
  if (unhook) stops.push(unhook);
  return { attachment, stop };
}
