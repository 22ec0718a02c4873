import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResult } from '../../../shared/contract/search';
import { openDatabase, type Db } from '../../platform/db/open';
import { overrideRanking, type RankingOverrides } from './rankingConstants';
import { searchRepository } from './search';
import { parseQuery } from './query';
import { makeIndexedRepo } from '../../testing/searchRepo';

// The code a report is about (shop/prices.py) and the project's test of it, which repeats every
// word of the report's example: undemoted, the test outranks the code.
const FILES: Record<string, string> = {
  'shop/__init__.py': '',
  'shop/prices.py': `def round_price(value):
    """A price rounded to cents."""
    return round(value, 2)
`,
  'tests/test_prices.py': `from shop.prices import round_price


def test_round_price_half_cent():
    """round_price of a half cent: 1.005 rounds up to 1.01."""
    assert round_price(1.005) == 1.01
    assert round_price(2.675) == 2.68
`,
  'docs/prices.md': `# Prices

round_price rounds a price to cents: a half cent rounds up, so round_price(1.005) is 1.01 and
round_price(2.675) is 2.68. Every price of an order is rounded with round_price.
`,
};

/** A bug report whose prose says "test" (the reporter's own), with the reporter's example. */
const REPORT = [
  'round_price rounds a half cent down',
  '',
  'I wrote a small test for it, the price 1.005 should round up to 1.01:',
  '',
  '```python',
  'from shop.prices import round_price',
  'assert round_price(1.005) == 1.01',
  '```',
].join('\n');

let db: Db;

beforeAll(async () => {
  const { curatedFile } = await makeIndexedRepo(FILES);
  db = openDatabase(curatedFile, { readOnly: true });
});

afterAll(() => db?.close());

async function search(query: string, overrides: RankingOverrides = {}): Promise<string[]> {
  const restore = overrideRanking(overrides);
  try {
    return (await searchRepository(db, query, { limit: 20 })).map((r: SearchResult) => r.path);
  } finally {
    restore();
  }
}

describe('issue-shaped text does not ask for tests (issue #27, item 7)', () => {
  it("ranks the code above its test when a report's prose says 'test'", async () => {
    expect(parseQuery(REPORT).issueShaped).toBe(true);
    expect(parseQuery(REPORT).mentionsTests).toBe(false);
    expect((await search(REPORT)).slice(0, 2)).toEqual(['shop/prices.py', 'tests/test_prices.py']);
    // Read as any other text, the word asks for tests: the test is not demoted and ranks first.
    expect((await search(REPORT, { ISSUE_SHAPED: { testsAsked: 1 } })).slice(0, 2)).toEqual(['tests/test_prices.py', 'shop/prices.py']);
  });

  it('still lets a one-line question or a commit message ask for tests', async () => {
    const question = 'test of round_price for a half cent';
    expect(parseQuery(question).mentionsTests).toBe(true);
    expect((await search(question))[0]).toBe('tests/test_prices.py');
  });
});

/** A bug report whose prose says "documentation" and "example": the reporter's reading of the docs. */
const DOCS_REPORT = [
  'round_price rounds a half cent down',
  '',
  'The documentation example says a half cent rounds up, but it rounds down:',
  '',
  '```python',
  'from shop.prices import round_price',
  'print(round_price(1.005))',
  '```',
].join('\n');

/** The file-class reason of a result (set when the file is demoted as a kind the query does not ask for), by path. */
async function demoted(query: string, overrides: RankingOverrides = {}): Promise<Record<string, unknown>> {
  const restore = overrideRanking(overrides);
  try {
    const results = await searchRepository(db, query, { limit: 20 });
    return Object.fromEntries(results.map((r) => [r.path, r.why.find((w) => w.kind === 'file-class')?.detail ?? null]));
  } finally {
    restore();
  }
}

describe('issue-shaped text does not ask for docs, config or examples by its words (issue #27, item 7)', () => {
  it("demotes the documentation page a report's prose mentions", async () => {
    expect((await demoted(DOCS_REPORT))['docs/prices.md']).toEqual({ class: 'docs' });
    // Read as any other text, "documentation" asks for docs: the page is not demoted.
    expect((await demoted(DOCS_REPORT, { ISSUE_SHAPED: { kindWords: 1 } }))['docs/prices.md']).toBeNull();
    expect((await search(DOCS_REPORT))[0]).toBe('shop/prices.py');
  });

  it('still lets a one-line question ask for the documentation, and a report name a file', async () => {
    expect((await demoted('documentation of round_price for a half cent'))['docs/prices.md']).toBeNull();
    expect((await demoted(`${DOCS_REPORT}\n\nSee docs/prices.md.`))['docs/prices.md']).toBeNull();
  });
});
