import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Core } from '../../core/app/createCore';
import { hostProblem, isAuthorized, newToken, tokenCookie, tokenMatches } from './auth';
import { decodePath, parseTarget, send } from './http';
import { handleApi } from './rest';
import { createSocketHost } from './socket';
import { checkRendererDir, serveStatic } from './static';

/** Options of the browser-mode server. */
export interface ServeOptions {
  core: Core;
  /** 0 picks a free port. */
  port: number;
  /** The built renderer (out/renderer). */
  rendererDir: string;
}

/** A running server: its URL carries the per-launch token. */
export interface RunningServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

/**
 * Serve the renderer and the contract on 127.0.0.1 only. Every HTTP request and every socket must
 * carry the per-launch token (query `?token=` once, then an HttpOnly SameSite=Strict cookie, or an
 * `Authorization: Bearer` header for scripts); anything else gets 401. The Host must be a loopback
 * name, and the API and socket refuse other origins (auth.ts).
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const rendererDir = checkRendererDir(options.rendererDir);
  const token = newToken();
  const socketHost = createSocketHost(options.core, token);
  const server = createServer((req, res) => {
    handleHttp(req, res).catch((error: unknown) => {
      console.error('[serve] request failed', error);
      if (!res.headersSent) send(res, 500, 'text/plain', 'Internal error');
    });
  });
  server.on('upgrade', socketHost.onUpgrade);

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hostRefusal = hostProblem(req);
    if (hostRefusal !== undefined) {
      send(res, 403, 'text/plain; charset=utf-8', `Forbidden: ${hostRefusal}`);
      return;
    }
    const url = parseTarget(req.url);
    if (url === undefined) {
      send(res, 400, 'text/plain; charset=utf-8', `Bad request: "${req.url ?? ''}" is not a path on this server.`);
      return;
    }
    const queryToken = url.searchParams.get('token');
    if (queryToken !== null && tokenMatches(queryToken, token) && req.method === 'GET') {
      // Trade the token in the URL for a cookie, and drop it from the address bar.
      url.searchParams.delete('token');
      res.setHeader('Set-Cookie', tokenCookie(token));
      res.writeHead(302, { Location: url.pathname + url.search });
      res.end();
      return;
    }
    if (!isAuthorized(req, token)) {
      send(res, 401, 'text/plain; charset=utf-8', 'Unauthorized: open the URL that `cra serve` printed (it carries the token).');
      return;
    }
    const path = decodePath(url.pathname);
    if (path === undefined) {
      send(res, 400, 'text/plain; charset=utf-8', `Bad request: the path "${url.pathname}" has malformed percent-encoding (a % must be followed by two hex digits of UTF-8).`);
      return;
    }
    // Routed on the raw path, so an encoded slash (`/api%2F…`) is a file name, not the API.
    if (url.pathname.startsWith('/api/')) {
      await handleApi(options.core, req, res, path.slice('/api/'.length));
      return;
    }
    serveStatic(res, rendererDir, path);
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolveListen());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      socketHost.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
