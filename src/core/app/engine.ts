import type { HostPolicy, HostPorts } from '../platform/ports';
import type { RepoHandles } from '../knowledge/repos/handles';
import type { RepoRegistry } from '../knowledge/repos/registry';
import type { EventBus } from '../platform/runtime/events';
import type { RunRegistry } from '../platform/runtime/runs';

/**
 * What the engine's shared infrastructure is, created once by `createCore`: the host's ports and
 * policy, the event bus, the job registry, the one connection to the repository registry (no domain opens
 * another) and the repository handles (the one place a repository's databases are opened). A
 * feature takes the part it uses (`Pick<EngineContext, ...>`), not the whole.
 */
export interface EngineContext {
  ports: HostPorts;
  /** How this host differs (decided at start): read it, never `ports.host`. */
  policy: HostPolicy;
  events: EventBus;
  runs: RunRegistry;
  version: string;
  registry: RepoRegistry;
  repos: RepoHandles;
}
