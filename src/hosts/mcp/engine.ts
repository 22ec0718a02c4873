import { dispatch } from '../../core/app/contract/dispatch';
import type { Core } from '../../core/app/createCore';
import { AppError, type EventKey, type EventPayload, type RequestInput, type RequestKey, type RequestOutput } from '../../shared/contract';

/**
 * What the MCP tools see of the engine: contract requests through the one validated path every
 * transport takes (dispatch: the input is checked against the contract's schema, a failure comes
 * back as `{code, message}` and is thrown here as an AppError), the contract's events, and waiting
 * for a run — nothing else of the engine.
 */
export interface EngineClient {
  request<K extends RequestKey>(key: K, input: RequestInput<K>): Promise<RequestOutput<K>>;
  on<K extends EventKey>(event: K, listener: (payload: EventPayload<K>) => void): () => void;
  /** The run's result once it ends; its failure (or cancellation) thrown. */
  wait(runId: string): Promise<unknown>;
}

/** The client over an engine in this process. */
export function engineClient(core: Pick<Core, 'handlers' | 'events' | 'runs'>): EngineClient {
  return {
    async request(key, input) {
      const envelope = await dispatch(core.handlers, key, input);
      if (!envelope.ok) throw new AppError(envelope.error.code, envelope.error.message, { details: envelope.error.details, retryable: envelope.error.retryable });
      return envelope.value as never;
    },
    on: (event, listener) => core.events.on(event, listener),
    wait: (runId) => core.runs.wait(runId),
  };
}
