import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RankingOverrides } from './rankingConstants';
import { parseQuery } from './query';
import { makeSearchableRepo, type SearchableRepo } from '../../testing/searchRepo';

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

let repo: SearchableRepo;

beforeAll(async () => {
  repo = await makeSearchableRepo(FILES);
});

afterAll(() => repo?.close());

const search = async (query: string, overrides: RankingOverrides = {}) => (await repo.search(query, overrides)).map((r) => r.path);

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
