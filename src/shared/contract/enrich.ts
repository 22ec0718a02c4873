import { z } from 'zod';
import { request } from './define';
import type { RunStarted } from './runInfo';

/** What one enrichment run did (the result of a run of kind `enrich`). */
export interface EnrichSummary {
  /** Indexed files considered. */
  files: number;
  /** Files described by the model in this run. */
  enriched: number;
  /** Files already described at their current content (an earlier run did them). */
  alreadyDone: number;
  /** Files whose replies were invalid twice (left for the next run). */
  failed: number;
  /** The model of the enrich stage. */
  model: string;
  /** Files whose metadata was promoted into the index (with `promote`), else absent. */
  promoted?: number;
  durationMs: number;
}

/** Requests of enrichment. */
export const enrichRequests = {
  'enrich/run': request<RunStarted<'enrich'>>()(
    'Describe every indexed file (purpose, domain, module, concepts) with the enrich model: starts an `enrich` run that skips files already done; `promote` copies the descriptions into the index for scope tier 4',
    () => z.object({ repoId: z.string().min(1), promote: z.boolean().optional() }).strict(),
    { repoId: 'repo-1' },
  ),
} as const;
