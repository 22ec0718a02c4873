import { describe, expect, it } from 'vitest';
import { classifyRationale, collapse, nextRationaleHint } from './builder';

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MARKERS = ['# ', '#', '// ', '//', '/// ', '//! ', '/* ', '/** ', '/*! ', ' * ', '*', ''];
const WORDS = ['TODO', 'todo', 'Todo', 'FIXME', 'HACK', 'NOTE', 'Note', 'WHY', 'Why', 'why', 'XXX', 'because', 'Because', 'BECAUSE', 'so', 'that', 'so that', 'otherwise', 'the', 'cache', 'license', 'x', 'TODOS', 'notes', 'whyever', 'TODO(ann)', 'a_because'];
const GLUE = [' ', '  ', ': ', ':', '(', ')', '-', '\n', '\n * ', '\n# ', '\n// ', '.', ',', '_', '*/', '\r\n'];

describe('rationale hints', () => {
  it('finds a hint in every comment classifyRationale accepts', () => {
    const next = random(42);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = pick(MARKERS);
      const n = 1 + Math.floor(next() * 8);
      for (let w = 0; w < n; w++) text += pick(WORDS) + pick(GLUE);
      if (next() < 0.3) text += '*/';
      if (!classifyRationale(text)) continue;
      accepted++;
      expect(nextRationaleHint(text, 0), JSON.stringify(text)).not.toBeNull();
    }
    expect(accepted).toBeGreaterThan(1000);
  });

  it('reports whole words only, from the given position on', () => {
    const text = 'notes # TODO: x because y';
    expect(nextRationaleHint(text, 0)).toEqual([8, 12]);
    expect(nextRationaleHint(text, 12)).toEqual([16, 23]);
    expect(nextRationaleHint(text, 23)).toBeNull();
    expect(nextRationaleHint('whyever TODOS a_because', 0)).toBeNull();
  });
});

describe('collapse', () => {
  /** The plain definition collapse must match: every whitespace run becomes one space, trimmed, then capped. */
  const reference = (text: string, max: number) => {
    const out = text.replace(/\s+/g, ' ').trim();
    return out.length > max ? `${out.slice(0, max - 1)}…` : out;
  };

  it('gives what collapsing the whole text gives, for long texts and long whitespace runs too', () => {
    const next = random(7);
    const pieces = ['a', 'word', 'x_y', ' ', '  ', '\n', '\t', ' '.repeat(300), '\n'.repeat(900), '(', '{'];
    for (let i = 0; i < 3000; i++) {
      let text = '';
      const n = Math.floor(next() * 400);
      for (let k = 0; k < n; k++) text += pieces[Math.floor(next() * pieces.length)];
      const max = [10, 80, 200, 400][i % 4]!;
      expect(collapse(text, max)).toBe(reference(text, max));
    }
    expect(collapse(`  ${'v = 1\n'.repeat(50_000)}`, 200)).toBe(reference(`  ${'v = 1\n'.repeat(50_000)}`, 200));
  });
});
