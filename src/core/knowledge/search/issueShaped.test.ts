import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResult } from '../../../shared/contract/search';
import type { RankingOverrides } from './rankingConstants';
import { makeSearchableRepo, type SearchableRepo } from '../../testing/searchRepo';

// The report's example calls save_order (shop/api.py); the fault is in the function save_order
// calls, stamp_row (shop/stamps.py), which the report never names. stamps.py and receipt.py match
// the report's words about as well; only the call from the named function tells them apart.
const FILES: Record<string, string> = {
  'shop/__init__.py': '',
  'shop/api.py': `from shop.stamps import stamp_row


def save_order(order):
    """Save an order and stamp it."""
    stamp_row(order)
    return order
`,
  'shop/stamps.py': `import time


def stamp_row(row):
    """The time of a row, as a naive local time."""
    row.time = time.localtime()
`,
  'shop/summary.py': `def order_lines(order):
    """Lines of an order summary: the time of the order and its total."""
    return [order.time, order.total]
`,
  'shop/zones.py': `def zone_name(order):
    """The timezone of a saved order's time, printed."""
    return order.zone
`,
  'shop/receipt.py': `def receipt(order):
    """A saved order's receipt: time, timezone, total."""
    return order.time
`,
};

/** A bug report: one sentence of symptom and the reporter's example (a fenced code block). */
const REPORT = [
  'A saved order keeps a naive time, without its timezone',
  '',
  '```python',
  'from shop.api import save_order',
  'order = save_order(Order(total=3))',
  'print(order.time)',
  '```',
].join('\n');

let repo: SearchableRepo;

beforeAll(async () => {
  repo = await makeSearchableRepo(FILES);
});

afterAll(() => repo?.close());

/**
 * The walk's merge alone: the title's own ranking (`ISSUE_SHAPED.titleText`, twelfth round) is left
 * out, since this report's title names the timezone that zones.py and receipt.py are about.
 */
const search = (query: string, overrides: RankingOverrides = {}): Promise<SearchResult[]> =>
  repo.search(query, { ...overrides, ISSUE_SHAPED: { titleText: 0, ...overrides.ISSUE_SHAPED } });

/** Main's merge for every text: the walk only raises a file to its value, at share 1. */
const RAISE_ONLY = { ISSUE_SHAPED: { expandAdd: 0, expandShare: 1 } };

const order = (results: SearchResult[]) => results.map((r) => r.path);

describe('issue-shaped text: the symbol-graph walk adds its value (issue #27, item 7)', () => {
  it("lifts the callee of the function a report's example calls above a file that only matches its words", async () => {
    const results = await search(REPORT);
    expect(order(results).slice(0, 3)).toEqual(['shop/api.py', 'shop/stamps.py', 'shop/receipt.py']);
    expect(results[1]!.why).toContainEqual({ kind: 'symbol-graph', detail: { relation: 'called-by', symbol: 'stamp_row', from: 'save_order', path: 'shop/api.py' } });
    // Raise-only (main's merge, and the merge for any other text), the walk's value is below
    // stamps.py's own score and changes nothing: receipt.py stays above it.
    expect(order(await search(REPORT, RAISE_ONLY)).slice(0, 3)).toEqual(['shop/api.py', 'shop/receipt.py', 'shop/stamps.py']);
  });

  it('keeps raise-only for text that is not issue-shaped (a commit message, a question)', async () => {
    const message = 'A saved order from save_order keeps a naive time, without its timezone';
    const scores = (results: SearchResult[]) => results.map((r) => [r.path, r.score]);
    expect(scores(await search(message))).toEqual(scores(await search(message, RAISE_ONLY)));
    expect(order(await search(message))).not.toEqual(order(await search(REPORT)));
  });
});
