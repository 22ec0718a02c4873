import { AppError, type Envelope, type EventKey, type EventPayload, type RequestInput, type RequestKey, type RequestOutput, type RunKind, type RunResult } from '../../../shared/contract';
import type { Core } from '../createCore';
import { dispatch } from './dispatch';

/**
 * What a host sees of an engine: contract requests (validated by the contract's schemas, defaults
 * filled in, a failure thrown as an AppError), the contract's events, and waiting for or cancelling
 * a run — nothing else of the engine. The CLI runs every command through one, in this process
 * ({@link localClient}) or against a running `cra serve` (hosts/cli/remote.ts).
 */
export interface EngineClient {
  request<K extends RequestKey>(key: K, input: RequestInput<K>): Promise<RequestOutput<K>>;
  on<K extends EventKey>(event: K, listener: (payload: EventPayload<K>) => void): () => void;
  /** The run's result once it ends; its failure (or cancellation) thrown. Given the kind, typed. */
  wait<K extends RunKind>(runId: string, kind: K): Promise<RunResult<K>>;
  wait(runId: string): Promise<unknown>;
  /** Ask a run to stop (`run/cancel`); its wait then rejects with CANCELLED. */
  cancel(runId: string): void;
  /** Stop every run this client started (Ctrl+C). */
  cancelAll(): void;
  /** Let go of the engine (a local one shuts down; a remote one is only disconnected). */
  dispose(): Promise<void>;
}

/** The value of an envelope, or its failure thrown as the AppError it was. */
export function unwrap<T>(envelope: Envelope<T>): T {
  if (envelope.ok) return envelope.value;
  const { code, message, details, retryable } = envelope.error;
  // A bug stays a plain Error, as when it was thrown in this process (hosts print it as internal).
  if (code === 'INTERNAL') throw new Error(message);
  throw new AppError(code, message, { details, retryable });
}

/** The client over an engine in this process: every request through {@link dispatch}, as the app's. */
export function localClient(core: Pick<Core, 'handlers' | 'events' | 'runs' | 'dispose'>): EngineClient {
  return {
    request: async (key, input) => unwrap(await dispatch(core.handlers, key, input)) as never,
    on: (event, listener) => core.events.on(event, listener),
    wait: ((runId: string, kind?: RunKind) => (kind ? core.runs.wait(runId, kind) : core.runs.wait(runId))) as EngineClient['wait'],
    cancel: (runId) => void core.runs.cancel(runId),
    cancelAll: () => core.runs.cancelAll(),
    dispose: () => core.dispose(),
  };
}
