import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../../core/app/createCore';
import { dispatch } from '../../core/app/contract/dispatch';
import type { ErrorCode } from '../../shared/contract';
import { crossSiteProblem } from './auth';
import { send, sendJson } from './http';

/** The largest request body (HTTP) and message (socket) the server takes. */
export const MAX_BODY = 8 * 1024 * 1024;

/**
 * `POST /api/<method>` with a JSON body: the contract over HTTP, answered with its envelope. Only
 * the app's own page or a script may call it (403), and only with a JSON content type (415), which
 * no form post or no-cors fetch from another page can send.
 */
export async function handleApi(core: Core, req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
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
  const envelope = await dispatch(core.handlers, method, input);
  sendJson(res, envelope.ok ? 200 : (REQUEST_ERRORS[envelope.error.code] ?? 200), envelope);
}

/**
 * The HTTP status of a failure that is the request's own fault (a bad input, a path that is not a
 * file, something that does not exist, a conflicting state); other failures (a model that cannot
 * be reached, an internal error) answer 200 with `ok: false`. The body is the envelope either way.
 */
const REQUEST_ERRORS: Partial<Record<ErrorCode, number>> = { VALIDATION: 400, UNAUTHORIZED: 403, NOT_FOUND: 404, CONFLICT: 409 };

/** `application/json`, with or without parameters (`; charset=utf-8`). */
function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
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
