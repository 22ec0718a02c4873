import type { HostPorts } from './ports';
import type { EventBus } from './runtime/events';
import type { RunRegistry } from './runtime/runs';

/** What every domain of the engine shares: the host's ports, the event bus and the job registry. */
export interface EngineContext {
  ports: HostPorts;
  events: EventBus;
  runs: RunRegistry;
  version: string;
}
