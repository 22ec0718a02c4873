import { describe, expect, it } from 'vitest';
import type { OutlineSymbol } from '../../../../shared/contract';
import type { SearchResult } from '../../../../shared/contract/search';
import { lineRange, moveSelection, openTarget, outlineTree, symbolAt, whyKind } from './reducers';

function sym(id: number, name: string, startLine: number, endLine: number, parentId: number | null = null): OutlineSymbol {
  return { id, name, qualifiedName: name, kind: parentId ? 'method' : 'class', signature: '', startLine, endLine, parentId, isExported: true };
}

describe('search result helpers', () => {
  it('classifies why a result is there', () => {
    expect(whyKind('text match')).toBe('text');
    expect(whyKind('path match')).toBe('path');
    expect(whyKind('definition of load_config')).toBe('definition');
    expect(whyKind('semantic match')).toBe('semantic');
    expect(whyKind('imported by a hit (app/main.py)')).toBe('imported');
    expect(whyKind('imports a hit (app/config.py)')).toBe('imports');
    expect(whyKind('changes together with a hit (app/config.py, 3 commits)')).toBe('cochange');
    expect(whyKind('something new')).toBe('other');
  });

  it('opens a result at its best symbol, else its first matching line, else the top', () => {
    const base: SearchResult = { path: 'a.py', score: 1, symbols: [], lines: [], why: [] };
    expect(openTarget({ ...base, symbols: [{ name: 'f', kind: 'function', startLine: 4, endLine: 9 }], lines: [{ line: 2, text: 'x' }] })).toEqual({
      path: 'a.py',
      line: 4,
      endLine: 9,
    });
    expect(openTarget({ ...base, lines: [{ line: 7, text: 'x' }] })).toEqual({ path: 'a.py', line: 7 });
    expect(openTarget(base)).toEqual({ path: 'a.py', line: 1 });
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
