import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResult } from '../../../shared/contract/search';
import { openDatabase, type Db } from '../../platform/db/open';
import { overrideRanking } from './rankingConstants';
import { searchRepository } from './search';
import { makeIndexedRepo } from '../../testing/searchRepo';

// A subclass and a caller that the queries name, and the base class and callee they lean on, which
// share no word with the queries: nothing in shapes/outline.py says "circle" or "radius", nothing
// in maths/rounding.py says "report" or "total". Each base/callee is reached by a package import
// (`from shapes import Outline`), so the file-level import edge points at the package, not at it.
const FILES: Record<string, string> = {
  'shapes/__init__.py': 'from shapes.outline import Outline\n',
  'shapes/outline.py': `class Outline:
    """A closed path with a stroke."""

    def stroke_width(self):
        return self.pen / 2

    def describe(self):
        return "outline"
`,
  'shapes/circle.py': `from shapes import Outline


class Circle(Outline):
    """A circle, drawn around its centre."""

    def circle_radius(self):
        return self.stroke_width() * 3

    def describe(self):
        return "circle"
`,
  'maths/__init__.py': 'from maths.rounding import half_up\n',
  'maths/rounding.py': `def half_up(value):
    return int(value * 2 + 1) / 2
`,
  'reports/totals.py': `from maths import half_up


def report_total(rows):
    """The report's total line."""
    return half_up(sum(rows))
`,
  // Direct hits of the words, weaker than the named symbol's file.
  'reports/notes.py': `def report_notes():
    return "total of the report, before rounding of the circle radius"
`,
  'docs_gen/sizes.py': `def radius_table():
    return {"circle": 1}
`,
};

let db: Db;

beforeAll(async () => {
  const { curatedFile } = await makeIndexedRepo(FILES);
  db = openDatabase(curatedFile, { readOnly: true });
});

afterAll(() => db?.close());

const rankOf = (results: SearchResult[], path: string) => results.findIndex((r) => r.path === path);

/** Results under an EXPAND setting (the product's, or the expansion switched off). */
async function search(query: string, off = false): Promise<SearchResult[]> {
  const restore = off ? overrideRanking({ EXPAND: { share: 0 } }) : () => undefined;
  try {
    return await searchRepository(db, query, { limit: 20 });
  } finally {
    restore();
  }
}

describe('symbol-graph expansion (issue #27, item 3)', () => {
  it('ranks the base class of a named subclass, saying why, below the direct hits', async () => {
    const results = await search('Circle.circle_radius gives a wrong size');
    const base = results.find((r) => r.path === 'shapes/outline.py');
    expect(base?.why).toContainEqual({ kind: 'symbol-graph', detail: { relation: 'base-class', symbol: 'Outline', from: 'Circle', path: 'shapes/circle.py' } });
    // The callee of the named method is found too (stroke_width, inherited and resolved through self).
    expect(results[0]!.path).toBe('shapes/circle.py');
    // Without the expansion the base class is not ranked at all (it shares no word with the query).
    expect(rankOf(await search('Circle.circle_radius gives a wrong size', true), 'shapes/outline.py')).toBe(-1);
  });

  it('ranks the callee of a named function, saying "called by", and keeps every direct hit above it', async () => {
    const results = await search('report_total is off by one');
    const callee = rankOf(results, 'maths/rounding.py');
    expect(callee).toBeGreaterThan(0);
    expect(results[callee]!.why).toContainEqual({ kind: 'symbol-graph', detail: { relation: 'called-by', symbol: 'half_up', from: 'report_total', path: 'reports/totals.py' } });
    // Decay: the file reached by a call ranks below every file that matches the text itself.
    const direct = results.filter((r) => r.why.some((w) => w.kind === 'text-match' || w.kind === 'definition'));
    expect(direct.map((r) => r.path)).toContain('reports/notes.py');
    for (const hit of direct) expect(rankOf(results, hit.path)).toBeLessThan(callee);
    expect(rankOf(await search('report_total is off by one', true), 'maths/rounding.py')).toBe(-1);
  });

  it('reaches the overridden method of a named override, and nothing when the share is 0', async () => {
    const results = await search('Circle.describe prints the wrong name');
    const base = results.find((r) => r.path === 'shapes/outline.py');
    expect(base?.why).toContainEqual({ kind: 'symbol-graph', detail: { relation: 'override', symbol: 'Outline.describe', from: 'Circle.describe', path: 'shapes/circle.py' } });
    const off = await search('Circle.describe prints the wrong name', true);
    expect(off.flatMap((r) => r.why).some((w) => w.kind === 'symbol-graph')).toBe(false);
  });
});
