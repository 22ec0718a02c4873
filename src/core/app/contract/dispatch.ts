import { AppError, PARSE_ONCE, requests, resolveRequestKey, serializeError } from '../../../shared/contract';
import type { Envelope, Handlers, RequestKey } from '../../../shared/contract';

/**
 * The one path every transport (ipcMain, WebSocket, HTTP, in-memory) takes into the engine:
 * the method name and input are untrusted, so both are checked before a handler runs, and
 * every failure comes back as `{code, message, details}`. A key renamed in issue 23 (`RENAMED_KEYS`)
 * still reaches its new handler, through the same validation (deprecated, removed after the next release).
 */
export async function dispatch(handlers: Handlers, method: string, rawInput: unknown): Promise<Envelope<unknown>> {
  try {
    const key: RequestKey | undefined = resolveRequestKey(method);
    if (key === undefined) throw new AppError('NOT_FOUND', `Unknown request "${method}".`);
    const parsed = requests[key].input.safeParse(rawInput ?? {}, PARSE_ONCE);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
      const first = issues[0];
      throw new AppError(
        'VALIDATION',
        `Invalid input for ${key}: ${first ? `${first.path || '(input)'}: ${first.message}` : 'rejected'}.`,
        { details: issues },
      );
    }
    const handler = handlers[key] as (input: unknown) => Promise<unknown>;
    const value = await handler(parsed.data);
    return { ok: true, value };
  } catch (error) {
    const wire = serializeError(error);
    if (wire.code === 'INTERNAL') console.error(`[engine] ${method} failed`, error);
    return { ok: false, error: wire };
  }
}
