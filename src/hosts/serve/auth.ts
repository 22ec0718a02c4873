import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The cookie that carries the per-launch token once the printed URL was opened. */
export const COOKIE = 'cra_token';

/** A fresh per-launch token (48 hex characters). */
export function newToken(): string {
  return randomBytes(24).toString('hex');
}

/** Compare in constant time, so the token cannot be guessed a character at a time. */
export function tokenMatches(candidate: string, token: string): boolean {
  const a = Buffer.from(candidate);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The `Set-Cookie` value that trades the token in the URL for an HttpOnly SameSite=Strict cookie. */
export function tokenCookie(token: string): string {
  return `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

/** Whether the request carries the token: `Authorization: Bearer` (scripts) or the cookie (the page). */
export function isAuthorized(req: IncomingMessage, token: string): boolean {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ') && tokenMatches(auth.slice(7), token)) return true;
  const cookies = req.headers.cookie?.split(';').map((c) => c.trim()) ?? [];
  return cookies.some((c) => c.startsWith(`${COOKIE}=`) && tokenMatches(c.slice(COOKIE.length + 1), token));
}

/**
 * Why the Host header is refused, or undefined. The server listens on 127.0.0.1 only, so a browser
 * reaches it as 127.0.0.1 or localhost; any other name is a DNS-rebinding page. The port is not
 * checked: an SSH tunnel may forward another local port to this one.
 */
export function hostProblem(req: IncomingMessage): string | undefined {
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
export function crossSiteProblem(req: IncomingMessage): string | undefined {
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
