import WebSocket from 'ws';
import type { EngineClient } from '../../core/app/contract/client';
import { unwrap } from '../../core/app/contract/client';
import { AppError, type Envelope, type RunFinished, type WsServerMessage } from '../../shared/contract';

/** Where a running `cra serve` answers and the token it printed (`--remote URL --token T`, or the URL's ?token=). */
export interface RemoteTarget {
  origin: string;
  token: string;
}

/** Read `--remote` and `--token`; the printed URL (with ?token=) works as it is. */
export function parseRemote(remote: string, token: string | undefined): RemoteTarget {
  let url: URL;
  try {
    url = new URL(remote);
  } catch {
    throw new AppError('VALIDATION', `--remote "${remote}" is not a URL; give the address \`cra serve\` printed, e.g. http://127.0.0.1:4317/?token=….`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('VALIDATION', `--remote must be an http:// address (got ${url.protocol}).`);
  const given = token ?? url.searchParams.get('token') ?? undefined;
  if (!given) throw new AppError('VALIDATION', '--remote needs the token `cra serve` printed: --token T, or the printed URL with ?token=.');
  return { origin: url.origin, token: given };
}

/**
 * A contract client over a running `cra serve`: each request is `POST /api/<method>` with the
 * Bearer token (validated by the server's dispatch, as the app's), and the engine's events come
 * over one WebSocket, opened before the first request so no event of a run it starts is missed.
 * Run outcomes are kept from `run/finished`, so `wait` after the run ended still answers; a run that
 * ended before this client heard of it is answered from its record and result (`run/attach`).
 */
export function remoteClient(target: RemoteTarget): EngineClient {
  const listeners = new Map<string, Set<(payload: never) => void>>();
  const finished = new Map<string, RunFinished>();
  const waiting = new Map<string, Array<(f: RunFinished) => void>>();
  const started = new Set<string>();
  let socket: Promise<WebSocket> | undefined;

  const connect = () =>
    (socket ??= new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${target.origin.replace(/^http/, 'ws')}/ws?token=${encodeURIComponent(target.token)}`);
      ws.on('open', () => resolve(ws));
      ws.on('error', (error) => reject(new AppError('NOT_FOUND', `No \`cra serve\` answers at ${target.origin} (${error.message}); start it, or check --remote and --token.`)));
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as WsServerMessage;
        if (message.type !== 'event') return;
        if (message.event === 'run/finished') {
          const f = message.payload as RunFinished;
          finished.set(f.runId, f);
          for (const resolveWait of waiting.get(f.runId) ?? []) resolveWait(f);
          waiting.delete(f.runId);
        }
        for (const listener of listeners.get(message.event) ?? []) listener(message.payload as never);
      });
    }));

  const outcome = (f: RunFinished): unknown => {
    if (f.status === 'done') return f.result;
    if (f.status === 'cancelled') throw new AppError('CANCELLED', f.error?.message ?? 'Cancelled.');
    throw new AppError((f.error?.code ?? 'INTERNAL') as never, f.error?.message ?? `Run ${f.runId} failed.`);
  };

  const client: EngineClient = {
    async request(key, input) {
      await connect();
      let res: Response;
      try {
        res = await fetch(`${target.origin}/api/${key}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(input ?? {}),
        });
      } catch (error) {
        throw new AppError('NOT_FOUND', `No \`cra serve\` answers at ${target.origin} (${(error as Error).message}).`);
      }
      if (res.status === 401) throw new AppError('UNAUTHORIZED', `${target.origin} refused the token; give the one \`cra serve\` printed (--token).`);
      const value = unwrap((await res.json()) as Envelope<unknown>);
      const runId = (value as { runId?: unknown } | null)?.runId;
      if (typeof runId === 'string') started.add(runId);
      return value as never;
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener as (payload: never) => void);
      return () => void set.delete(listener as (payload: never) => void);
    },
    wait: (async (runId: string) => {
      await connect();
      const known = finished.get(runId);
      if (known) return outcome(known);
      // Past every event: only the run's record and result come back.
      const { run, result } = await client.request('run/attach', { runId, afterSeq: Number.MAX_SAFE_INTEGER });
      if (run.status !== 'running') return outcome({ runId, kind: run.kind, status: run.status, ...(run.error ? { error: run.error } : {}), ...(result !== undefined ? { result } : {}) } as RunFinished);
      // Still running: its run/finished comes over the socket (or came while the attach was answered).
      const heard = finished.get(runId);
      if (heard) return outcome(heard);
      return outcome(await new Promise<RunFinished>((resolve) => waiting.set(runId, [...(waiting.get(runId) ?? []), resolve])));
    }) as EngineClient['wait'],
    cancel: (runId) => void client.request('run/cancel', { runId }).catch(() => undefined),
    cancelAll: () => started.forEach((runId) => client.cancel(runId)),
    async dispose() {
      if (socket) (await socket.catch(() => undefined))?.close();
    },
  };
  return client;
}
