import { AppError } from '../../../shared/contract';

/** What an action stores when an operation fails: the wire shape, serializable. */
export interface OpError {
  code: string;
  message: string;
}

/** Convert anything thrown by a client call into the stored shape; null for cancellations. */
export function toOpError(error: unknown): OpError | null {
  if (error instanceof AppError) return error.code === 'CANCELLED' ? null : { code: error.code, message: error.message };
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}
