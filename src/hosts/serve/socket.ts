import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { WsClientMessage, WsServerMessage } from '../../shared/contract';
import type { Core } from '../../core/app/createCore';
import { dispatch } from '../../core/app/contract/dispatch';
import { crossSiteProblem, hostProblem, isAuthorized, tokenMatches } from './auth';
import { parseTarget } from './http';
import { MAX_BODY } from './rest';

/** The WebSocket side of the server: `invoke` messages in, results and every engine event out. */
export interface SocketHost {
  /** The server's `upgrade` listener. */
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Stop pushing events and drop every socket. */
  close(): void;
}

/**
 * Bind the contract to sockets on `/ws`. A socket needs the token (query or cookie), a loopback
 * Host and, from a browser, the app's own origin; the renderer's client talks to the engine over it.
 */
export function createSocketHost(core: Core, token: string): SocketHost {
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY });
  const unsubscribe = core.events.onAny((event, payload) => {
    const message = JSON.stringify({ type: 'event', event, payload } satisfies WsServerMessage);
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(message);
  });

  function onSocket(ws: WebSocket): void {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    // A bad frame (too big, not UTF-8, unmasked) is this socket's problem: ws closes it with the
    // matching code (1009, 1007, 1002) after this event, and the server goes on.
    ws.on('error', (error) => console.error(`[serve] closed a socket: ${error.message}`));
    ws.on('message', (data) => {
      let message: WsClientMessage;
      try {
        message = JSON.parse(String(data)) as WsClientMessage;
      } catch {
        return;
      }
      if (message?.type !== 'invoke' || typeof message.id !== 'number' || typeof message.method !== 'string') return;
      void dispatch(core.handlers, message.method, message.input).then((envelope) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'result', id: message.id, envelope } satisfies WsServerMessage));
      });
    });
  }

  return {
    onUpgrade(req, socket, head) {
      // Node drops its own error listener from an upgraded socket: a reset here must not end the process.
      socket.on('error', () => socket.destroy());
      const url = parseTarget(req.url);
      const queryToken = url?.searchParams.get('token') ?? null;
      const authorized = (queryToken !== null && tokenMatches(queryToken, token)) || isAuthorized(req, token);
      const refusal = hostProblem(req) ?? crossSiteProblem(req);
      if (url?.pathname !== '/ws' || !authorized || refusal !== undefined) {
        const status = authorized && refusal !== undefined ? '403 Forbidden' : '401 Unauthorized';
        socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => onSocket(ws));
    },
    close() {
      unsubscribe();
      for (const ws of sockets) ws.terminate();
      wss.close();
    },
  };
}
