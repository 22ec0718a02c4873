import type { z } from 'zod';
import { appEvents, appRequests } from './app';
import { configEvents, configRequests } from './config';
import { logsRequests } from './logs';
import { modelsEvents, modelsRequests } from './models';
import type { EventDef, RequestDef } from './define';
import { evalRequests } from './eval';
import { reposEvents, reposRequests } from './repos';
import { searchRequests } from './search';
import { chatEvents, chatRequests } from './chat';
import { plansRequests } from './plans';
import { retrievalEvents, retrievalRequests } from './retrieval';
import { reviewRequests } from './review';
import { plansRunsRequests } from './plansRuns';
import { summariesRequests } from './summaries';
import { enrichRequests } from './enrich';
import { trainingRequests } from './training';

/**
 * The single source of truth for what the renderer may ask the engine (`domain/verb`) and what
 * the engine pushes (`domain/noun`). Every domain declares its part in its own file; this map
 * joins them. Adding a key here without a handler in core is a compile error.
 */
export const requests = {
  ...appRequests,
  ...modelsRequests,
  ...logsRequests,
  ...configRequests,
  ...evalRequests,
  ...reposRequests,
  ...searchRequests,
  ...chatRequests,
  ...plansRequests,
  ...retrievalRequests,
  ...reviewRequests,
  ...plansRunsRequests,
  ...summariesRequests,
  ...enrichRequests,
  ...trainingRequests,
} as const;

/** Every pushed event. */
export const events = {
  ...appEvents,
  ...configEvents,
  ...modelsEvents,
  ...reposEvents,
  ...chatEvents,
  ...retrievalEvents,
} as const;

/** Every request key. */
export type RequestKey = keyof typeof requests;
/** Every event key. */
export type EventKey = keyof typeof events;

type DefOf<K extends RequestKey> = (typeof requests)[K];
type SchemaOf<K extends RequestKey> = DefOf<K> extends RequestDef<infer S, unknown> ? S : never;

/** What a caller sends (defaults may be omitted). */
export type RequestInput<K extends RequestKey> = z.input<SchemaOf<K>>;
/** What a handler receives after validation (defaults filled in). */
export type ParsedInput<K extends RequestKey> = z.output<SchemaOf<K>>;
/** What a handler returns. */
export type RequestOutput<K extends RequestKey> = DefOf<K> extends RequestDef<z.ZodType, infer O> ? O : never;
/** The payload of an event. */
export type EventPayload<K extends EventKey> = (typeof events)[K] extends EventDef<infer P> ? P : never;

/** An implementation of every request: what the engine provides and every host binds. */
export type Handlers = { [K in RequestKey]: (input: ParsedInput<K>) => Promise<RequestOutput<K>> };

/** True when `key` names a request of the contract (untrusted input from a transport). */
export function isRequestKey(key: string): key is RequestKey {
  return Object.prototype.hasOwnProperty.call(requests, key);
}

/** True when `key` names an event of the contract. */
export function isEventKey(key: string): key is EventKey {
  return Object.prototype.hasOwnProperty.call(events, key);
}
