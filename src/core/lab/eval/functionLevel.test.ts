import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { makeIndexedRepo } from '../../testing/searchRepo';
import { overrideRanking } from '../../knowledge/search/rankingConstants';
import { goldUnits, packageUnitRecall, scoreUnits, unitRanking } from './functionLevel';
import { parseHunks } from './goldLines';

// Lines: 1 import, 2 blank, 3 LIMIT, 4-5 blank, 6 class, 7 method open, 8 body, 9 blank, 10 method close, 11 body, 12-13 blank, 14 def, 15 body.
const SHOP = [
  'import os',
  '',
  'LIMIT = 3',
  '',
  '',
  'class Cart:',
  '    def add(self, item):',
  '        self.items.append(item)',
  '',
  '    def total(self):',
  '        return sum(self.items)',
  '',
  '',
  'def checkout(cart):',
  '    return cart.total()',
  '',
].join('\n');

describe('function-level localization', () => {
  let kb: KnowledgeBase;
  beforeAll(async () => {
    const repo = await makeIndexedRepo({ 'shop/cart.py': SHOP });
    kb = KnowledgeBase.open(repo.curatedFile, 'test');
  });
  afterAll(() => kb?.close());

  it('takes the innermost functions and classes around changed lines, and the file for module-level changes', () => {
    const diff = ['--- a/shop/cart.py', '+++ b/shop/cart.py', '@@ -8 +8 @@', '@@ -15,0 +16,2 @@', '@@ -3 +3 @@'].join('\n');
    expect(goldUnits(kb, parseHunks(diff)).sort()).toEqual(['shop/cart.py', 'shop/cart.py::Cart.add', 'shop/cart.py::checkout'].sort());
    // A change spanning two methods names both, not the class around them.
    const both = ['--- a/shop/cart.py', '+++ b/shop/cart.py', '@@ -8,3 +8,3 @@'].join('\n');
    expect(goldUnits(kb, parseHunks(both)).sort()).toEqual(['shop/cart.py::Cart.add', 'shop/cart.py::Cart.total']);
  });

  it('ranks units file by file, the file itself when a result names no function', () => {
    const units = unitRanking([
      { path: 'shop/cart.py', symbols: [{ name: 'Cart.total', kind: 'method', startLine: 10, endLine: 11 }, { name: 'LIMIT', kind: 'constant', startLine: 3, endLine: 3 }, { name: 'checkout', kind: 'function', startLine: 14, endLine: 15 }] },
      { path: 'shop/tax.py', symbols: [] },
    ]);
    expect(units).toEqual(['shop/cart.py::Cart.total', 'shop/cart.py::checkout', 'shop/tax.py']);
  });

  it('interleaves the files by the scores of their units when every result has them', () => {
    // By score alone here (no weight for the file's rank; the next case has it).
    const restore = overrideRanking({ UNITS: { fileDecay: 1 } });
    const units = unitRanking([
      { path: 'shop/cart.py', score: 2, symbols: [{ name: 'Cart.total', kind: 'method', startLine: 10, endLine: 11, score: 2 }, { name: 'checkout', kind: 'function', startLine: 14, endLine: 15, score: 0.4 }] },
      { path: 'shop/tax.py', score: 1.5, symbols: [{ name: 'rate', kind: 'function', startLine: 1, endLine: 2, score: 1.2 }] },
      { path: 'shop/notes.md', score: 0.5, symbols: [] },
    ]);
    restore();
    expect(units).toEqual(['shop/cart.py::Cart.total', 'shop/tax.py::rate', 'shop/notes.md', 'shop/cart.py::checkout']);
  });

  it("weighs each file's units by the file's rank, so a lower file's units need a larger share to pass the first file's", () => {
    const results = [
      { path: 'http.py', score: 3.8, symbols: [{ name: 'parse_options_header', kind: 'function', startLine: 1, endLine: 9, score: 3.8 }, { name: 'parse_dict_header', kind: 'function', startLine: 20, endLine: 40, score: 2.4 }] },
      { path: 'auth.py', score: 3.5, symbols: [{ name: 'Authorization.__eq__', kind: 'method', startLine: 1, endLine: 4, score: 2.9 }] },
    ];
    // parse_dict_header (2.4) passes auth.py's __eq__ (2.9) only with the second file's weight (0.8: 2.32).
    expect(unitRanking(results).indexOf('http.py::parse_dict_header')).toBe(1);
    const restore = overrideRanking({ UNITS: { fileDecay: 1 } });
    try {
      expect(unitRanking(results).indexOf('http.py::parse_dict_header')).toBe(2);
    } finally {
      restore();
    }
  });

  it('scores units: a module-level gold unit is found at its file\'s first unit; Acc@k needs every gold unit', () => {
    const ranked = ['a.py::f', 'b.py::g', 'a.py::h', 'c.py'];
    const scored = scoreUnits(ranked, ['a.py::h', 'b.py', 'd.py::x'], [1, 3, 10], 5, 50);
    expect(scored.goldRanks).toEqual({ 'a.py::h': 3, 'b.py': 2, 'd.py::x': null });
    expect(scored.recallAt).toEqual({ 1: 0, 3: 2 / 3, 10: 2 / 3 });
    expect(scored.allGoldAt).toEqual({ 1: 0, 3: 0, 10: 0 });
    expect(scored.mrr).toBe(1 / 2);
    expect(scoreUnits(ranked, ['a.py::f', 'c.py'], [1, 5], 0, 50).allGoldAt).toEqual({ 1: 0, 5: 1 });
  });

  it('counts the gold units a package holds: the symbol, an enclosing one in full, the whole file; the file for module-level units', () => {
    const item = (qualifiedName: string | undefined, detail: 'full' | 'signature' | 'file') => ({ ...(qualifiedName ? { symbol: { qualifiedName, kind: 'method', role: 'primary' as const } } : {}), detail, startLine: 1, endLine: 2, text: '', tokens: 1, reasons: [] });
    const pkg = {
      files: [
        { path: 'a.py', tier: 1, reasons: [], headerTokens: 1, items: [item('Cart', 'full'), item('Other', 'signature')] },
        { path: 'b.py', tier: 1, reasons: [], headerTokens: 1, items: [item(undefined, 'file')] },
        { path: 'c.py', tier: 1, reasons: [], headerTokens: 1, items: [item('f', 'signature')] },
      ],
    };
    expect(packageUnitRecall(pkg, ['a.py::Cart.add', 'a.py::Other.run', 'b.py::g', 'c.py', 'c.py::f', 'd.py'])).toBe(4 / 6);
    expect(packageUnitRecall(pkg, [])).toBe(0);
  });
});
