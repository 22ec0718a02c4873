import { afterAll, afterEach, beforeAll } from 'vitest';
import { createExtractor, type Extractor } from '../knowledge/indexer/extract/extractor';

/**
 * One tree-sitter extractor for a whole test file (grammars load once), disposed after it.
 * Returns the function `indexRepository`'s `extractor` option expects.
 */
export function sharedExtractor(): () => Promise<Extractor> {
  let extractor: Promise<Extractor> | undefined;
  beforeAll(() => {
    extractor = createExtractor();
  });
  afterAll(async () => (await extractor)?.dispose());
  return () => {
    if (!extractor) throw new Error('sharedExtractor() is used before its beforeAll hook ran');
    return extractor;
  };
}

/** Clean-up steps registered during a test, run in reverse order after it. */
export function cleanupAfterEach(): { push(step: () => void): void } {
  const steps: Array<() => void> = [];
  afterEach(() => {
    while (steps.length) steps.pop()!();
  });
  return { push: (step) => void steps.push(step) };
}
