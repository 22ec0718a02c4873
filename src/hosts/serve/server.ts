import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { WsClientMessage, WsServerMessage } from '../../shared/contract';
import type { Core } from '../../core/createCore';
import { dispatch } from '../../core/contract/dispatch';
import { RENDERER_CSP } from './csp';

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

const COOKIE = 'cra_token';
const MAX_BODY = 8 * 1024 * 1024;
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/**
 * Serve the renderer and the contract on 127.0.0.1 only. Every HTTP request and every socket must
 * carry the per-launch token (query `?token=` once, then an HttpOnly SameSite=Strict cookie, or an
 * `Authorization: Bearer` header for scripts); anything else gets 401.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const rendererDir = resolve(options.rendererDir);
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new Error(`The renderer is not built (no ${join(rendererDir, 'index.html')}). Run \`npm run build\` first.`);
  }
  const token = randomBytes(24).toString('hex');
  const sockets = new Set<WebSocket>();
  const server = createServer((req, res) => {
    handleHttp(req, res).catch((error: unknown) => {
      console.error('[serve] request failed', error);
      if (!res.headersSent) send(res, 500, 'text/plain', 'Internal error');
    });
  });

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
      res.setHeader('Set-Cookie', `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
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
      await handleApi(req, res, path.slice('/api/'.length));
      return;
    }
    serveStatic(res, rendererDir, path);
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const crossSite = crossSiteProblem(req);
    if (crossSite !== undefined) {
      sendJson(res, 403, { ok: false, error: { code: 'UNAUTHORIZED', message: crossSite } });
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, 'text/plain', 'Use POST with a JSON body.');
      return;
    }
    if (!isJson(req.headers['content-type'])) {
      const type = req.headers['content-type'] ?? 'none';
      sendJson(res, 415, { ok: false, error: { code: 'VALIDATION', message: `The API takes JSON only (Content-Type was ${type}); send \`Content-Type: application/json\`.` } });
      return;
    }
    const body = await readBody(req, MAX_BODY);
    if (body === undefined) {
      sendJson(res, 413, { ok: false, error: { code: 'VALIDATION', message: `The request body is over the ${MAX_BODY / 1024 / 1024} MiB limit; send less.` } });
      return;
    }
    let input: unknown = {};
    if (body.length > 0) {
      try {
        input = JSON.parse(body) as unknown;
      } catch {
        sendJson(res, 400, { ok: false, error: { code: 'VALIDATION', message: 'The request body is not valid JSON.' } });
        return;
      }
    }
    const envelope = await dispatch(options.core.handlers, method, input);
    sendJson(res, 200, envelope);
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY });
  server.on('upgrade', (req, socket, head) => {
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
  });

  const unsubscribe = options.core.events.onAny((event, payload) => {
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
      void dispatch(options.core.handlers, message.method, message.input).then((envelope) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'result', id: message.id, envelope } satisfies WsServerMessage));
      });
    });
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
      unsubscribe();
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function tokenMatches(candidate: string, token: string): boolean {
  const a = Buffer.from(candidate);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function isAuthorized(req: IncomingMessage, token: string): boolean {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ') && tokenMatches(auth.slice(7), token)) return true;
  const cookies = req.headers.cookie?.split(';').map((c) => c.trim()) ?? [];
  return cookies.some((c) => c.startsWith(`${COOKIE}=`) && tokenMatches(c.slice(COOKIE.length + 1), token));
}

function serveStatic(res: ServerResponse, root: string, pathname: string): void {
  const relative = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '');
  let file = resolve(root, relative || 'index.html');
  if (file !== root && !file.startsWith(root + sep)) {
    send(res, 403, 'text/plain', 'Forbidden');
    return;
  }
  if (!existsSync(file) || statSync(file).isDirectory()) {
    // Client-side routes fall back to the app shell; missing assets are 404.
    if (extname(relative) !== '') {
      send(res, 404, 'text/plain', 'Not found');
      return;
    }
    file = join(root, 'index.html');
  }
  const type = TYPES[extname(file)] ?? 'application/octet-stream';
  const headers: Record<string, string> = { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff' };
  if (type.startsWith('text/html')) {
    headers['Content-Security-Policy'] = RENDERER_CSP;
    headers['Cache-Control'] = 'no-store';
  }
  res.writeHead(200, headers);
  res.end(readFileSync(file));
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value));
}

/**
 * The body as text, or undefined when it is over `limit` bytes. An oversized body is still read to
 * its end (and dropped) so that the client, still sending, reads the 413 instead of a reset.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number(req.headers['content-length']) > limit;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolveBody(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The request target as a URL, or undefined when it cannot be one. */
function parseTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://127.0.0.1');
  } catch {
    return undefined;
  }
}

/** The decoded path, or undefined when its percent-encoding is malformed (`/%`, `/%ff`). */
function decodePath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}

/** `application/json`, with or without parameters (`; charset=utf-8`). */
function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * Why the Host header is refused, or undefined. The server listens on 127.0.0.1 only, so a browser
 * reaches it as 127.0.0.1 or localhost; any other name is a DNS-rebinding page. The port is not
 * checked: an SSH tunnel may forward another local port to this one.
 */
function hostProblem(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (host === undefined) return 'the request has no Host header; address the server as 127.0.0.1 or localhost.';
  if (!/^(127\.0\.0\.1|localhost)(:\d{1,5})?$/i.test(host)) {
    return `the Host header "${host}" is not this server; open it as 127.0.0.1 or localhost.`;
  }
  return undefined;
}

/**
 * Why a browser request from another page is refused, or undefined. A page on another local port is
 * the same site (the SameSite cookie goes with it) but not the same origin, which browsers tell us
 * through Origin and Sec-Fetch-Site. Requests with neither come from scripts holding the token.
 */
function crossSiteProblem(req: IncomingMessage): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    return `Refused a ${site} request: only the app's own page (or a script with the token) may call the engine.`;
  }
  const origin = req.headers.origin;
  const own = `http://${req.headers.host ?? ''}`.toLowerCase();
  if (origin !== undefined && origin.toLowerCase() !== own) {
    return `Refused a request from ${origin}: only the app's own page (${own}) may call the engine.`;
  }
  return undefined;
}
