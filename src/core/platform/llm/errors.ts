import { AppError } from '../../../shared/contract';

/** A failed model call, classified: the user-facing error and whether another attempt may help. */
export interface ClassifiedError {
  error: AppError;
  transient: boolean;
}

/** Where and what, for messages. */
export interface ErrorContext {
  baseUrl: string;
  model?: string;
  /** Why our own signal fired: the caller cancelled or the per-call timeout passed. */
  abortReason?: 'cancelled' | 'timeout';
  timeoutMs?: number;
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** An HTTP failure of a model server, as either provider sees it. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpStatusError';
  }
}

/** A reply that is not what the protocol promises (malformed JSON line, missing final message). */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/**
 * Turn anything a provider threw into an AppError with a message a person can act on, and say
 * whether it is transient (connection refused or reset, 429, 5xx) — only those are retried.
 */
export function classifyError(error: unknown, ctx: ErrorContext): ClassifiedError {
  if (error instanceof AppError) return { error, transient: false };
  const where = ctx.baseUrl;
  const model = ctx.model ? `'${ctx.model}'` : 'the model';
  if (ctx.abortReason === 'cancelled') return { error: new AppError('CANCELLED', 'Cancelled.'), transient: false };
  if (ctx.abortReason === 'timeout') {
    const secs = Math.round((ctx.timeoutMs ?? 0) / 1000);
    return { error: new AppError('MODEL_ERROR', `${model} did not answer within ${secs} s at ${where}. Raise [models].timeout_s or use a smaller model.`, { retryable: true }), transient: false };
  }
  const status = httpStatus(error);
  const message = error instanceof Error ? error.message : String(error);
  if (status !== undefined) return classifyStatus(status, message, { where, model });
  if (error instanceof ProtocolError) {
    return { error: new AppError('MODEL_ERROR', `The model server at ${where} sent a malformed reply (${message}). Check that base_url points at an Ollama or OpenAI-compatible server.`, { retryable: true }), transient: false };
  }
  const code = errnoCode(error);
  if (code && CONNECT_CODES.has(code)) {
    return { error: new AppError('OLLAMA_UNREACHABLE', `Cannot reach the model server at ${where} (${code}). Start it with \`ollama serve\`, or set [models].base_url / OLLAMA_HOST.`, { retryable: true, cause: error }), transient: true };
  }
  if ((code && RESET_CODES.has(code)) || /terminated|socket hang up|other side closed|Did not receive done/i.test(message)) {
    return { error: new AppError('MODEL_ERROR', `The model server at ${where} closed the connection in the middle of a reply. Try again; if it repeats, check the server's log.`, { retryable: true, cause: error }), transient: true };
  }
  if (/not found/i.test(message) && /model/i.test(message)) {
    return { error: new AppError('MODEL_NOT_FOUND', `Model ${model} is not installed at ${where}. Pull it on the Models page or with \`cra models pull ${ctx.model ?? '<name>'}\`.`), transient: false };
  }
  return { error: new AppError('MODEL_ERROR', `The model call to ${where} failed: ${message}`, { cause: error }), transient: false };
}

function classifyStatus(status: number, message: string, at: { where: string; model: string }): ClassifiedError {
  if (status === 404 && /model|not found|does not exist/i.test(message)) {
    const tag = at.model.replace(/'/g, '');
    return { error: new AppError('MODEL_NOT_FOUND', `Model ${at.model} is not installed at ${at.where}. Pull it on the Models page or with \`cra models pull ${tag}\`.`, { details: { status } }), transient: false };
  }
  if (status === 429) return { error: new AppError('MODEL_ERROR', `The model server at ${at.where} is busy (HTTP 429). Try again shortly.`, { retryable: true, details: { status } }), transient: true };
  if (status >= 500) return { error: new AppError('MODEL_ERROR', `The model server at ${at.where} failed (HTTP ${status}): ${message}`, { retryable: true, details: { status } }), transient: true };
  return { error: new AppError('MODEL_ERROR', `The model server at ${at.where} refused the request (HTTP ${status}): ${message}`, { details: { status } }), transient: false };
}

function httpStatus(error: unknown): number | undefined {
  if (error instanceof HttpStatusError) return error.status;
  const s = (error as { status_code?: unknown } | null)?.status_code;
  return typeof s === 'number' ? s : undefined;
}

/** The errno-like code of an error or of its causes (undici wraps socket errors in `cause`). */
export function errnoCode(error: unknown): string | undefined {
  let cur: unknown = error;
  for (let depth = 0; depth < 5 && cur; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ABORT_ERR') return code;
    const errors = (cur as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length) cur = errors[0];
    else cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}
