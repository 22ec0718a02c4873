/**
 * The retrieval pipeline's settings from the config's [retrieval] table, with the defaults in one
 * place (the schema leaves them optional so older config files stay valid).
 */
import type { ConfigValues } from '../../platform/config/schema';
import type { StageOptions } from './pipeline';
import { SCOPE_DEFAULTS } from '../../../shared/defaults';

/** Resolved pipeline settings. */
export interface RetrievalSettings {
  stageOptions: StageOptions;
  concurrency: number;
  safetyMargin: number;
  maxRefinementLoops: number;
}

/** Defaults of the [retrieval] pipeline keys. */
export const RETRIEVAL_DEFAULTS = { max_candidates: SCOPE_DEFAULTS.maxCandidates, min_co_change: SCOPE_DEFAULTS.minCoChange, search_seeds: SCOPE_DEFAULTS.searchSeeds, safety_margin: 0.1, max_refinement_loops: 2 } as const;

/** Settings from the config; concurrency defaults to the server's parallel slots when OLLAMA_NUM_PARALLEL says them, else 1. */
export function retrievalSettings(values: Pick<ConfigValues, 'retrieval'>, env: NodeJS.ProcessEnv = process.env): RetrievalSettings {
  const r = values.retrieval;
  const slots = Number(env.OLLAMA_NUM_PARALLEL);
  return {
    stageOptions: {
      scope: { maxCandidates: r.max_candidates ?? RETRIEVAL_DEFAULTS.max_candidates, minCoChange: r.min_co_change ?? RETRIEVAL_DEFAULTS.min_co_change, searchSeeds: r.search_seeds ?? RETRIEVAL_DEFAULTS.search_seeds },
    },
    concurrency: r.concurrency ?? (Number.isInteger(slots) && slots > 0 ? Math.min(slots, 64) : 1),
    safetyMargin: r.safety_margin ?? RETRIEVAL_DEFAULTS.safety_margin,
    maxRefinementLoops: r.max_refinement_loops ?? RETRIEVAL_DEFAULTS.max_refinement_loops,
  };
}
