import { describe, expect, it } from 'vitest';
import { hashToPlace, placeToHash } from './history';

describe('the hash of a place', () => {
  it('opens the renamed pages under their new ids, and under their old ids for one release', () => {
    expect(hashToPlace('#retrieval').page).toBe('retrieval');
    expect(hashToPlace('#training').page).toBe('training');
    expect(hashToPlace('#inspector').page).toBe('retrieval');
    expect(hashToPlace('#data?repo=r-1').page).toBe('training');
    expect(hashToPlace('#nowhere').page).toBe('repositories');
  });

  it('writes the new id back', () => {
    expect(placeToHash(hashToPlace('#inspector?repo=r-1'))).toBe('#retrieval?repo=r-1');
  });
});
