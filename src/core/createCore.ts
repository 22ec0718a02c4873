import { mkdirSync } from 'node:fs';
import type { Handlers } from '../shared/contract';
import { setDefaultNativeBinding } from './db/open';
import { createAppHandlers } from './domains/app';
import type { EngineContext } from './engine';
import { packageVersion } from './paths';
import type { HostPorts } from './ports';
import { EventBus } from './runtime/events';
import { RunRegistry } from './runtime/runs';

/** The engine as a host sees it: one handler per contract key, the event bus, and shutdown. */
export interface Core {
  handlers: Handlers;
  events: EventBus;
  runs: RunRegistry;
  context: EngineContext;
  dispose(): Promise<void>;
}

/**
 * Composition root. Each domain contributes the handlers for its keys; the `Handlers` type makes a
 * missing key a compile error.
 */
export function createCore(ports: HostPorts): Core {
  mkdirSync(ports.dataDir, { recursive: true });
  if (ports.sqliteNativeBinding) setDefaultNativeBinding(ports.sqliteNativeBinding);
  const events = new EventBus();
  const runs = new RunRegistry(events);
  const context: EngineContext = { ports, events, runs, version: packageVersion() };
  const disposers: Array<() => Promise<void> | void> = [];

  const handlers: Handlers = {
    ...createAppHandlers(context),
  };

  return {
    handlers,
    events,
    runs,
    context,
    async dispose() {
      runs.cancelAll();
      for (const dispose of disposers.reverse()) await dispose();
    },
  };
}
