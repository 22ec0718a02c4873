import type { HostPorts } from './ports';
import type { RepoRegistry } from './repos/registry';
import type { EventBus } from './runtime/events';
import type { RunRegistry } from './runtime/runs';

/**
 * What every domain of the engine shares: the host's ports, the event bus, the job registry and the
 * one connection to the repository registry (no domain opens another).
 */
export interface EngineContext {
  ports: HostPorts;
  events: EventBus;
  runs: RunRegistry;
  version: string;
  registry: RepoRegistry;
}
