import type { CraBridge, Envelope } from '../../../shared/contract';
import type { Core } from '../createCore';
import { dispatch } from './dispatch';

/**
 * A bridge that crosses no process but behaves like one: inputs, results and event payloads are
 * copied through JSON, so anything that would not survive IPC or WebSocket fails here too.
 * Used by the contract test and renderer-free integration tests.
 */
export function createInMemoryBridge(core: Core): CraBridge {
  return {
    invoke: async (method, input) => {
      const wireInput: unknown = input === undefined ? undefined : JSON.parse(JSON.stringify(input));
      const envelope = await dispatch(core.handlers, method, wireInput);
      return JSON.parse(JSON.stringify(envelope)) as Envelope<never>;
    },
    subscribe: (event, callback) =>
      core.events.on(event, (payload) => callback(JSON.parse(JSON.stringify(payload ?? null)) as never)),
  };
}
