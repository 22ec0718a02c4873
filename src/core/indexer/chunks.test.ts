import { describe, expect, it } from 'vitest';
import { buildChunks } from './chunks';
import type { ExtractedSymbol } from './extract/types';

const symbol = (over: Partial<ExtractedSymbol> & Pick<ExtractedSymbol, 'name' | 'startLine' | 'endLine'>): ExtractedSymbol => ({
  qualifiedName: over.name,
  kind: 'function',
  signature: '',
  docstring: null,
  parent: null,
  isExported: true,
  ...over,
});

describe('buildChunks', () => {
  it('gives a long class a header chunk and one per method, without blank chunks between methods', () => {
    const methods = Array.from({ length: 3 }, (_, i) => [`    def m${i}(self):`, ...Array.from({ length: 30 }, () => '        pass'), '']).flat();
    const lines = ['class Big:', '    """Docs of Big."""', '', ...methods];
    const symbols: ExtractedSymbol[] = [symbol({ name: 'Big', kind: 'class', startLine: 1, endLine: lines.length })];
    for (let i = 0; i < 3; i++) {
      const start = 4 + i * 32;
      symbols.push(symbol({ name: `m${i}`, qualifiedName: `Big.m${i}`, kind: 'method', parent: 0, startLine: start, endLine: start + 30 }));
    }
    const chunks = buildChunks(lines.join('\n'), symbols);
    expect(chunks.map((c) => `${c.kind} ${c.startLine}-${c.endLine} ${c.symbolNames}`)).toEqual([
      'class 1-3 Big',
      'method 4-34 Big.m0 Big',
      'method 36-66 Big.m1 Big',
      'method 68-98 Big.m2 Big',
    ]);
    expect(chunks[0]!.text).toContain('Docs of Big');
    expect(chunks.every((c) => c.text.trim().length > 0)).toBe(true);
  });
});
