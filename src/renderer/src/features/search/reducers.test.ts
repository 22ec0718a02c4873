import { describe, expect, it } from 'vitest';
import type { OutlineSymbol } from '../../../../shared/contract';
import type { SearchResult } from '../../../../shared/contract/search';
import { clampResultsWidth, definitionOf, highlightParts, namedSymbol, lineRange, moveSelection, openTarget, outlineTree, rowSymbol, snippetOf, SPLIT, symbolAt, termPattern } from './reducers';

function sym(id: number, name: string, startLine: number, endLine: number, parentId: number | null = null): OutlineSymbol {
  return { id, name, qualifiedName: name, kind: parentId ? 'method' : 'class', signature: '', startLine, endLine, parentId, isExported: true };
}

describe('search result helpers', () => {
  const base = emptyResult();

  it('opens a result at its best line', () => {
    expect(openTarget({ ...base, bestLine: 8, symbols: [cls], lines: [{ line: 2, text: 'x' }] })).toEqual({ path: 'a.py', line: 8 });
  });

  it('opens a result without a best line at its best symbol, else its first matching line, else the top', () => {
    expect(openTarget({ ...base, symbols: [{ name: 'f', kind: 'function', startLine: 4, endLine: 9 }], lines: [{ line: 2, text: 'x' }] })).toEqual({
      path: 'a.py',
      line: 4,
      endLine: 9,
    });
    expect(openTarget({ ...base, lines: [{ line: 7, text: 'x' }] })).toEqual({ path: 'a.py', line: 7 });
    expect(openTarget(base)).toEqual({ path: 'a.py', line: 1 });
  });

  it('opens at the definition of the exact symbol the query names, not at a text match or a longer name', () => {
    const symbols = [
      { name: 'add_arguments', kind: 'method', startLine: 20, endLine: 30 },
      { name: 'Parser.add_argument', kind: 'method', startLine: 40, endLine: 60 },
    ];
    expect(openTarget({ ...base, bestLine: 11, symbols }, 'add_argument')).toEqual({ path: 'a.py', line: 40, symbol: 'add_argument' });
    // Not listed among the result's symbols: the best line, with the name for the file view to look up in the outline.
    expect(openTarget({ ...base, bestLine: 11, symbols: [] }, 'JSONDecoder')).toEqual({ path: 'a.py', line: 11, symbol: 'JSONDecoder' });
    // A phrase names no symbol.
    expect(openTarget({ ...base, bestLine: 11, symbols }, 'add argument')).toEqual({ path: 'a.py', line: 11 });
    expect(namedSymbol(' json.JSONDecoder ')).toBe('json.JSONDecoder');
    expect(namedSymbol('percent off')).toBeNull();
    expect(definitionOf([{ name: 'decode', qualifiedName: 'JSONDecoder.decode', startLine: 300, endLine: 310 }, { name: 'JSONDecoder', qualifiedName: 'JSONDecoder', startLine: 254, endLine: 400 }], 'JSONDecoder')?.startLine).toBe(254);
    expect(definitionOf([{ name: 'add_arguments', startLine: 5, endLine: 6 }], 'add_argument')).toBeNull();
  });

  it('moves the keyboard selection within the list', () => {
    expect(moveSelection(-1, 0, 1)).toBe(-1);
    expect(moveSelection(-1, 3, 1)).toBe(0);
    expect(moveSelection(-1, 3, -1)).toBe(2);
    expect(moveSelection(0, 3, -1)).toBe(0);
    expect(moveSelection(1, 3, 1)).toBe(2);
    expect(moveSelection(2, 3, 1)).toBe(2);
  });
});

describe('dense rows and highlighting', () => {
  it('names the innermost symbol around the best line, else the best symbol', () => {
    expect(rowSymbol({ ...emptyResult(), bestLine: 7, symbols: [cls, method] })?.name).toBe('Store.load');
    expect(rowSymbol({ ...emptyResult(), bestLine: 15, symbols: [method, cls] })?.name).toBe('Store');
    expect(rowSymbol({ ...emptyResult(), bestLine: 40, symbols: [method, cls] })?.name).toBe('Store.load');
    expect(rowSymbol(emptyResult())).toBeNull();
  });

  it('shows the best line as the snippet when it is among the matching lines', () => {
    const lines = [
      { line: 3, text: 'a' },
      { line: 9, text: 'b' },
    ];
    expect(snippetOf({ ...emptyResult(), bestLine: 9, lines })).toEqual({ line: 9, text: 'b' });
    expect(snippetOf({ ...emptyResult(), bestLine: 4, lines })).toEqual({ line: 3, text: 'a' });
    expect(snippetOf(emptyResult())).toBeNull();
  });

  it('splits a line into query-term hits, case-insensitive, longest term first', () => {
    expect(highlightParts('def getUser(user_id):', ['getuser', 'get', 'user', 'id'])).toEqual([
      { text: 'def ', hit: false },
      { text: 'getUser', hit: true },
      { text: '(', hit: false },
      { text: 'user', hit: true },
      { text: '_', hit: false },
      { text: 'id', hit: true },
      { text: '):', hit: false },
    ]);
    // Terms are text, not patterns; one-letter terms are not marked (the engine ignores them too).
    expect(highlightParts('a.b(c)', ['a.b(', 'c'])).toEqual([
      { text: 'a.b(', hit: true },
      { text: 'c)', hit: false },
    ]);
    expect(highlightParts('nothing here', [])).toEqual([{ text: 'nothing here', hit: false }]);
    expect(termPattern(['x'])).toBeNull();
  });

  it('keeps the results column between its minimum and the file pane minimum', () => {
    expect(clampResultsWidth(400, 1200)).toBe(400);
    expect(clampResultsWidth(100, 1200)).toBe(SPLIT.minResults);
    expect(clampResultsWidth(1000, 1200)).toBe(1200 - SPLIT.minFile);
    // Too narrow for both: the results keep their minimum, the CSS grid shrinks them further.
    expect(clampResultsWidth(400, 500)).toBe(SPLIT.minResults);
  });
});

function emptyResult(): SearchResult {
  return { path: 'a.py', score: 1, symbols: [], lines: [], bestLine: null, why: [] };
}
const method = { name: 'Store.load', kind: 'method', startLine: 6, endLine: 10 };
const cls = { name: 'Store', kind: 'class', startLine: 5, endLine: 20 };

describe('outline grouping', () => {
  const symbols = [sym(3, 'save', 12, 14, 1), sym(1, 'Store', 5, 20), sym(2, 'load', 6, 10, 1), sym(4, 'main', 22, 30), sym(5, 'orphan', 40, 41, 99)];

  it('nests members under their class in source order, orphans at the top level', () => {
    expect(outlineTree(symbols).map((e) => `${'  '.repeat(e.depth)}${e.symbol.name}`)).toEqual(['Store', '  load', '  save', 'main', 'orphan']);
  });

  it('finds the innermost symbol at a line', () => {
    expect(symbolAt(symbols, 7)?.name).toBe('load');
    expect(symbolAt(symbols, 11)?.name).toBe('Store');
    expect(symbolAt(symbols, 21)).toBeNull();
    expect(lineRange(5, 20)).toBe('5–20');
    expect(lineRange(5, 5)).toBe('5');
  });
});
