/**
 * Expected failures that cross the contract boundary. The set of codes is closed: a renderer can
 * switch over it exhaustively. Bugs are plain `Error`s and surface as INTERNAL.
 */
export const ERROR_CODES = [
  'VALIDATION',
  'NOT_FOUND',
  'UNAUTHORIZED',
  'CANCELLED',
  'CONFIG_MISSING',
  'CONFIG_INVALID',
  'NOT_INDEXED',
  'PARSE_FAILED',
  'DB_LOCKED',
  'OLLAMA_UNREACHABLE',
  'OLLAMA_NOT_INSTALLED',
  'MODEL_NOT_FOUND',
  'MODEL_ERROR',
  'DISK_FULL',
  'UNSUPPORTED',
  /** The user's files changed since a run read them: applying would overwrite their edits. */
  'CONFLICT',
  'INTERNAL',
] as const;

/** One of the closed set of error codes. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** What crosses IPC / HTTP / WebSocket: never a stack. */
export interface SerializedError {
  code: ErrorCode;
  message: string;
  details?: unknown;
  retryable?: boolean;
}

/** An expected failure with a code from the closed set. Throw it for user-facing problems only. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: { details?: unknown; retryable?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }
}

/** True for an AbortSignal-driven cancellation, whatever produced it. */
export function isCancellation(error: unknown): boolean {
  if (error instanceof AppError) return error.code === 'CANCELLED';
  return error instanceof Error && (error.name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR');
}

/** Turn anything thrown into the wire shape; unknown errors become INTERNAL without leaking a stack. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof AppError) {
    const out: SerializedError = { code: error.code, message: error.message, retryable: error.retryable };
    if (error.details !== undefined) out.details = error.details;
    return out;
  }
  if (isCancellation(error)) return { code: 'CANCELLED', message: 'Cancelled.' };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message: `Internal error: ${message}` };
}

/** Rebuild an AppError on the receiving side of the boundary. */
export function deserializeError(wire: SerializedError): AppError {
  const code = (ERROR_CODES as readonly string[]).includes(wire.code) ? wire.code : 'INTERNAL';
  return new AppError(code, wire.message, { details: wire.details, retryable: wire.retryable });
}

/** The envelope every transport carries for a request's result. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: SerializedError };
