/* eslint-disable @typescript-eslint/no-require-imports -- the domains' modules, loaded on first use (lazyModule) */
import type { Handlers, RequestKey } from '../../shared/contract';
import { lazyModule } from '../platform/runtime/lazyModule';
import type * as Chat from './domains/chat';
import type * as Enrich from './domains/enrich';
import type * as Eval from './domains/eval';
import type * as Logs from './domains/logs';
import type * as Models from './domains/models';
import type * as ModelSetup from './domains/modelSetup';
import type * as Plans from './domains/plans';
import type * as PlansRuns from './domains/plansRuns';
import type * as Retrieval from './domains/retrieval';
import type * as Review from './domains/review';
import type * as Training from './domains/training';

/*
 * The domains `createCore` builds on the first request for one of their keys (issue #25: a command
 * loads only what it uses). Their modules, and what those import (chat's pipelines and turn, the
 * evaluation, training, solve, review, enrichment, the model manager), are not loaded before: `cra
 * search` initialises none of them. The key lists are checked by the compiler both ways: a key a
 * domain does not serve does not type-check against its handlers, and one left out leaves
 * createCore's `Handlers` without it.
 */

/** The modules, each loaded once on first use. */
export const domainModules = {
  chat: lazyModule(() => require('./domains/chat') as typeof Chat, () => import('./domains/chat')),
  enrich: lazyModule(() => require('./domains/enrich') as typeof Enrich, () => import('./domains/enrich')),
  eval: lazyModule(() => require('./domains/eval') as typeof Eval, () => import('./domains/eval')),
  logs: lazyModule(() => require('./domains/logs') as typeof Logs, () => import('./domains/logs')),
  models: lazyModule(() => require('./domains/models') as typeof Models, () => import('./domains/models')),
  modelSetup: lazyModule(() => require('./domains/modelSetup') as typeof ModelSetup, () => import('./domains/modelSetup')),
  plans: lazyModule(() => require('./domains/plans') as typeof Plans, () => import('./domains/plans')),
  plansRuns: lazyModule(() => require('./domains/plansRuns') as typeof PlansRuns, () => import('./domains/plansRuns')),
  retrieval: lazyModule(() => require('./domains/retrieval') as typeof Retrieval, () => import('./domains/retrieval')),
  review: lazyModule(() => require('./domains/review') as typeof Review, () => import('./domains/review')),
  training: lazyModule(() => require('./domains/training') as typeof Training, () => import('./domains/training')),
};

/** The contract keys each lazily built domain serves. */
export const DOMAIN_KEYS = {
  chat: ['chat/ask', 'chat/history', 'chat/pipelines', 'chat/setDefaultPipeline', 'chat/rename', 'chat/delete', 'chat/export'],
  enrich: ['enrich/run'],
  eval: ['eval/list', 'eval/get', 'eval/start'],
  logs: ['logs/list', 'logs/get'],
  models: ['models/status', 'models/startServer', 'models/list', 'models/show', 'models/ps', 'models/pull', 'models/delete', 'models/recommended', 'models/assignments', 'models/assign', 'models/assignStages', 'models/test'],
  modelSetup: ['models/setupPlan', 'models/setup', 'models/check', 'models/checks'],
  plans: ['plans/create', 'plans/list', 'plans/get', 'plans/validate', 'plans/save'],
  plansRuns: ['plans/solve', 'plans/getRun', 'plans/listRuns', 'plans/discardRun', 'plans/sandbox'],
  retrieval: ['retrieval/run'],
  review: ['review/get', 'review/apply', 'review/undo'],
  training: ['training/overview', 'training/samples', 'training/export', 'training/bootstrap', 'training/trainPlan', 'training/curate'],
} as const satisfies Record<keyof typeof domainModules, readonly RequestKey[]>;

/**
 * Handlers for `keys` that build the domain's with `make` (loading its modules) on the first
 * request for any of them, then pass every request on to it.
 */
export function lazyHandlers<K extends RequestKey>(keys: readonly K[], make: () => Promise<Pick<Handlers, K>>): Pick<Handlers, K> {
  let made: Promise<Pick<Handlers, K>> | undefined;
  const handlers = {} as Record<K, (input: unknown) => Promise<unknown>>;
  for (const key of keys) {
    handlers[key] = async (input) => {
      const domain = (await (made ??= make())) as unknown as Record<K, (input: unknown) => Promise<unknown>>;
      return domain[key](input);
    };
  }
  return handlers as unknown as Pick<Handlers, K>;
}
