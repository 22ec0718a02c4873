import { describe, expect, it } from 'vitest';
import { judgePrompt } from '../retrieval/judgePrompts';
import { judgedItem } from './retrieveWatch';

const prompt = (family: 'chat' | 'reranker', document: string) => judgePrompt(family, { instruct: 'Needed?', query: 'Fix path: a.py\nItem:\nnot this', document }).prompt;

describe('judgedItem', () => {
  it('names a file by its path, a symbol as path:qualified.name and a group by its file, in both prompt forms', () => {
    expect(judgedItem(prompt('chat', 'path: pkg/a.py\nlanguage: python'))).toBe('pkg/a.py');
    expect(judgedItem(prompt('reranker', 'path: pkg/a.py\nlanguage: python'))).toBe('pkg/a.py');
    expect(judgedItem(prompt('chat', 'symbol: Cart.total (method)\nfile: shop/cart.py:9-11\nsignature: def total(self)'))).toBe('shop/cart.py:Cart.total');
    expect(judgedItem(prompt('chat', 'file: shop/cart.py\nsymbols (2):\n  9-11 Cart.total (method): def total(self)\n  13-15 Cart.add (method): def add(self, item)'))).toBe('shop/cart.py (2 symbols)');
  });

  it('falls back to the item’s first line', () => {
    expect(judgedItem(prompt('chat', 'pair: a.py | b.py\nmore'))).toBe('pair: a.py | b.py');
  });
});
