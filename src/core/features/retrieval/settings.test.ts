import { describe, expect, it } from 'vitest';
import { parseToml, validateConfig } from '../../platform/config/load';
import { retrievalSettings } from './settings';

const values = (toml: string) => validateConfig(parseToml(toml, 't'), 't');

describe('retrieval settings from [retrieval]', () => {
  it('uses the defaults, and concurrency from OLLAMA_NUM_PARALLEL when the config names none', () => {
    expect(retrievalSettings(values(''), {})).toEqual({ stageOptions: { scope: { maxCandidates: 90, minCoChange: 2, searchSeeds: 20 } }, concurrency: 1, safetyMargin: 0.1, maxRefinementLoops: 2 });
    expect(retrievalSettings(values(''), { OLLAMA_NUM_PARALLEL: '4' }).concurrency).toBe(4);
    expect(retrievalSettings(values(''), { OLLAMA_NUM_PARALLEL: 'lots' }).concurrency).toBe(1);
  });

  it('takes the candidate cap, co-change minimum, search seeds, concurrency, margin and refinement bound from the config', () => {
    const s = retrievalSettings(values('[retrieval]\nmax_candidates = 30\nmin_co_change = 3\nsearch_seeds = 0\nconcurrency = 2\nsafety_margin = 0.25\nmax_refinement_loops = 0\n'), { OLLAMA_NUM_PARALLEL: '8' });
    expect(s).toEqual({ stageOptions: { scope: { maxCandidates: 30, minCoChange: 3, searchSeeds: 0 } }, concurrency: 2, safetyMargin: 0.25, maxRefinementLoops: 0 });
  });

  it('refuses values out of range with the key named', () => {
    expect(() => values('[retrieval]\nmax_candidates = 0\n')).toThrow(/max_candidates/);
    expect(() => values('[retrieval]\nsafety_margin = 2\n')).toThrow(/safety_margin/);
  });
});
