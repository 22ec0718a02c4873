import { describe, expect, it } from 'vitest';
import { comparePaths } from './pathOrder';

describe('the order of paths that tie on score (chat)', () => {
  it("is localeCompare's: case, accents, digits, punctuation and non-Latin names", () => {
    const paths = ['src/b.py', 'src/B.py', 'src/a.py', 'src/á.py', 'src/ä.py', 'src/z.py', 'src/10.py', 'src/9.py', 'src/_x.py', 'src/-x.py', 'src/.x', 'lib/Ünïcödé/ñ.ts', 'lib/日本/語.ts', 'lib/ελληνικά.js', 'a/b/c', 'a-b/c', 'a_b/c', 'a.b/c', 'A/b/c', '', 'src/b.py'];
    for (const a of paths) for (const b of paths) expect(Math.sign(comparePaths(a, b)), `${a} vs ${b}`).toBe(Math.sign(a.localeCompare(b)));
    expect([...paths].sort(comparePaths)).toEqual([...paths].sort((a, b) => a.localeCompare(b)));
  });
});
