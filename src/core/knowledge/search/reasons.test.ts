import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reasonSchema, type Reason } from '../../../shared/contract/reasons';
import type { SearchResult } from '../../../shared/contract/search';
import { openDatabase, type Db } from '../../platform/db/open';
import { bestLine } from './details';
import { FILE_BM25, GRAPH } from './rankingConstants';
import { parseQuery } from './query';
import { searchWithMode, withoutWeakNeighbours } from './search';
import { makeIndexedRepo } from '../../testing/searchRepo';

// A billing module with an import on each side, a config file that changes with it often and a
// logger that changed with it twice; nothing outside billing/invoice.py and app/main.py says "invoice".
const INVOICE = `from billing.pdf import lay_out


def invoice_total(lines, tax):
    """Add up the lines, then the tax."""
    subtotal = sum(line.amount for line in lines)
    return subtotal * (1 + tax)


def print_invoice(lines, tax):
    # the invoice total goes on the last invoice page
    return lay_out(invoice_total(lines, tax))
`;
const PDF = `def lay_out(amount):
    return b"%PDF" + str(amount).encode()
`;
const MAIN = `from billing.invoice import print_invoice


def run(order):
    return print_invoice(order.lines, order.tax)
`;
const LOG = `def note(message):
    print(message)
`;

let db: Db;

beforeAll(async () => {
  const busy = ['billing/invoice.py', 'billing/rates.py'];
  const { curatedFile } = await makeIndexedRepo(
    {
      'billing/__init__.py': '',
      'billing/invoice.py': INVOICE,
      'billing/pdf.py': PDF,
      'app/main.py': MAIN,
      'billing/rates.py': 'standard = 0.2\n',
      'util/log.py': LOG,
    },
    [busy, busy, busy, busy, busy, ['billing/invoice.py', 'util/log.py']],
  );
  db = openDatabase(curatedFile, { readOnly: true });
});

afterAll(() => db?.close());

const byPath = (results: SearchResult[], path: string) => results.find((r) => r.path === path);
const kinds = (result: SearchResult | undefined) => result?.why.map((r) => r.kind) ?? [];

describe('structured reasons from search', () => {
  it('gives every signal its kind with a typed detail, each valid against the contract', async () => {
    const { results } = await searchWithMode(db, 'invoice total', { mode: 'keyword' });
    const invoice = byPath(results, 'billing/invoice.py');
    expect(results[0]!.path).toBe('billing/invoice.py');
    expect(invoice!.why[0]).toEqual({ kind: 'definition', detail: { symbol: 'invoice_total' } });
    expect(invoice!.why).toContainEqual({ kind: 'text-match', detail: { score: 1 } });
    expect(invoice!.why).toContainEqual({ kind: 'path-match', detail: { score: expect.any(Number) } });
    expect(invoice!.why).toContainEqual({ kind: 'file-text-match', detail: { score: 1 } });
    expect(byPath(results, 'billing/pdf.py')?.why).toContainEqual({ kind: 'imported-by', detail: { path: 'billing/invoice.py' } });
    expect(byPath(results, 'app/main.py')?.why).toContainEqual({ kind: 'imports', detail: { path: 'billing/invoice.py' } });
    expect(byPath(results, 'billing/rates.py')?.why).toContainEqual({ kind: 'co-change', detail: { path: 'billing/invoice.py', commits: expect.any(Number) } });
    for (const result of results) for (const reason of result.why) expect(reasonSchema.safeParse(reason).success).toBe(true);
  });

  it('lists a reason once even when two rankers offer it', async () => {
    const { results } = await searchWithMode(db, 'invoice total', { mode: 'keyword' });
    for (const result of results) expect(new Set(result.why.map((r) => JSON.stringify(r))).size).toBe(result.why.length);
  });

  it('carries the terms it searched for, for highlighting', async () => {
    const outcome = await searchWithMode(db, 'invoiceTotal', { mode: 'keyword' });
    expect(outcome.terms).toEqual(expect.arrayContaining(['invoicetotal', 'invoice', 'total']));
  });
});

describe('the neighbour floor', () => {
  it('drops a neighbour-only file below the floor, keeps strong neighbours and the order of the rest', async () => {
    const { results } = await searchWithMode(db, 'invoice total', { mode: 'keyword', limit: 50 });
    // The floor is a share of the best score before whole-file BM25, which adds at most
    // FILE_BM25.share × that score to any file: the best score before it is at least this.
    const top = results[0]!.score / (1 + FILE_BM25.share);
    // The logger changed with the top hit only twice: its boost is far below the floor.
    expect(byPath(results, 'util/log.py')).toBeUndefined();
    // The config file changed with it five times: a strong neighbour, kept.
    const rates = byPath(results, 'billing/rates.py');
    expect(kinds(rates)).toEqual(['co-change']);
    expect(rates!.score).toBeGreaterThanOrEqual(top * GRAPH.neighbourFloor);
    for (const r of results) {
      const neighbourOnly = r.why.length > 0 && r.why.every((w) => ['imported-by', 'imports', 'co-change'].includes(w.kind));
      if (neighbourOnly) expect(r.score).toBeGreaterThanOrEqual(top * GRAPH.neighbourFloor);
    }
    const scores = results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('filters only neighbour-only entries under the floor', () => {
    const neighbour: Reason = { kind: 'imported-by', detail: { path: 'a.py' } };
    const text: Reason = { kind: 'text-match', detail: { score: 0.01 } };
    const ranked = [
      { id: 'top', score: 1, why: [text] },
      { id: 'strong neighbour', score: GRAPH.neighbourFloor, why: [neighbour] },
      { id: 'weak text', score: 0.01, why: [text] },
      { id: 'weak neighbour', score: GRAPH.neighbourFloor * 0.99, why: [neighbour] },
      { id: 'weak neighbour with text', score: 0.01, why: [neighbour, text] },
      { id: 'no reason', score: 0.01, why: [] },
    ];
    expect(withoutWeakNeighbours(ranked).map((r) => r.id)).toEqual(['top', 'strong neighbour', 'weak text', 'weak neighbour with text', 'no reason']);
    expect(withoutWeakNeighbours([])).toEqual([]);
  });
});

describe('the best line', () => {
  it('is the line of the best chunk with the most distinct query terms, the first of equals', () => {
    const chunk = { start_line: 10, text: 'def a():\n    total = 1\n    invoice total here\n    invoice total again\n' };
    expect(bestLine(chunk, parseQuery('invoice total'))).toBe(12);
    expect(bestLine(chunk, parseQuery('total'))).toBe(11);
    // No line has a term (a path or stemmed match): the chunk's first line.
    expect(bestLine(chunk, parseQuery('zebra'))).toBe(10);
  });

  it('is carried in each result: the matching line for a text hit, null for a neighbour', async () => {
    const { results } = await searchWithMode(db, 'invoice total', { mode: 'keyword' });
    const invoice = byPath(results, 'billing/invoice.py')!;
    const lines = INVOICE.split('\n');
    // "# the invoice total goes on the last invoice page" (three term hits, two distinct terms) ties
    // with "def invoice_total(lines, tax):" which contains invoice, total and invoice_total's join.
    expect(lines[invoice.bestLine! - 1]).toMatch(/invoice/);
    expect(lines[invoice.bestLine! - 1]).toMatch(/total/);
    expect(byPath(results, 'billing/rates.py')!.bestLine).toBeNull();
  });
});
