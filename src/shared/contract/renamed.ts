import type { EventKey, RequestKey } from './api';
import { isRequestKey } from './api';

/**
 * Contract keys renamed to one word per idea (issue 23: `retrieval`, `plans`, `training`), old key
 * → new key. Every transport (IPC, `cra serve`'s HTTP route and WebSocket, MCP, in memory) goes
 * through `dispatch`, which answers an old key with the new key's handler and the same validation.
 * Deprecated, removed after the next release: clients should send the new keys now.
 */
export const RENAMED_KEYS = {
  'retrieve/run': 'retrieval/run',
  'solve/run': 'plans/solve',
  'solve/get': 'plans/getRun',
  'solve/list': 'plans/listRuns',
  'solve/discard': 'plans/discardRun',
  'solve/sandbox': 'plans/sandbox',
  'data/overview': 'training/overview',
  'data/samples': 'training/samples',
  'data/export': 'training/export',
  'data/bootstrap': 'training/bootstrap',
  'data/curate': 'training/curate',
  'data/trainPlan': 'training/trainPlan',
} as const satisfies Record<string, RequestKey>;

/**
 * Events renamed with the keys, old name → new name. The engine pushes each under both names to
 * the transports (the app listens to the new one). Deprecated, removed after the next release.
 */
export const RENAMED_EVENTS = {
  'retrieve/package': 'retrieval/package',
  'retrieve/judgment': 'retrieval/judgment',
} as const satisfies Record<string, EventKey>;

/** An old event name still pushed beside the new one for a release. */
export type DeprecatedEventKey = keyof typeof RENAMED_EVENTS;

const OLD_EVENT_NAME = new Map<EventKey, DeprecatedEventKey>(
  Object.entries(RENAMED_EVENTS).map(([old, current]) => [current, old as DeprecatedEventKey]),
);

/** The request key `method` names: itself, or the new key of a renamed one; undefined when neither. */
export function resolveRequestKey(method: string): RequestKey | undefined {
  if (isRequestKey(method)) return method;
  return Object.prototype.hasOwnProperty.call(RENAMED_KEYS, method) ? RENAMED_KEYS[method as keyof typeof RENAMED_KEYS] : undefined;
}

/** The old name an event is also pushed under for a release, if it was renamed. */
export function deprecatedEventName(event: EventKey): DeprecatedEventKey | undefined {
  return OLD_EVENT_NAME.get(event);
}
