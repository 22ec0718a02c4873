import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layoutEntries } from './layout';
import { packageRoot } from './paths';

/** The paths README's "Where data lives" table names in its first column. */
function readmePaths(): string[] {
  const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
  const start = readme.indexOf('## Where data lives');
  expect(start).toBeGreaterThanOrEqual(0);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

const topLevel = (path: string) => path.split('/')[0]!;

describe("README's data folder table and the layout module (issue 23 item 3)", () => {
  const layout = layoutEntries();
  const named = readmePaths();

  it('reads a table of at least a dozen paths', () => {
    expect(named.length).toBeGreaterThanOrEqual(12);
  });

  it('every path README names is a path of the layout', () => {
    expect(named.filter((path) => !layout.includes(path))).toEqual([]);
  });

  it('every top-level entry of the layout is in README', () => {
    const documented = new Set(named.map(topLevel));
    expect([...new Set(layout.map(topLevel))].filter((entry) => !documented.has(entry))).toEqual([]);
  });
});
