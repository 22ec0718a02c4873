import type { ServerResponse } from 'node:http';

/** Answer with a status, a content type and a text body. */
export function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type });
  res.end(body);
}

/** Answer with a JSON value. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value));
}

/** The request target as a URL, or undefined when it cannot be one. */
export function parseTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://127.0.0.1');
  } catch {
    return undefined;
  }
}

/** The decoded path, or undefined when its percent-encoding is malformed (`/%`, `/%ff`). */
export function decodePath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}
