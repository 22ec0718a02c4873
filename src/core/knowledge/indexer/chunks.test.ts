import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildChunks, WordCache } from './chunks';
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

describe('WordCache', () => {
  it('splits compound identifiers into lower-case words and holds at most its limit of identifiers', () => {
    const cache = new WordCache(3);
    expect(cache.of('parseHTTPResponse')).toEqual(['parsehttpresponse', 'parse', 'http', 'response']);
    expect(cache.of('get_user_id')).toEqual(['get_user_id', 'get', 'user', 'id']);
    for (let i = 0; i < 10; i++) cache.of(`name_${i}_value`);
    expect(cache.size).toBeLessThanOrEqual(3);
    expect(cache.of('get_user_id')).toEqual(['get_user_id', 'get', 'user', 'id']);
  });

  it('does not keep the texts it was fed alive (its keys and words are copies, not slices of the text)', () => {
    // 40 texts of 1 MB, each with a few long identifiers of its own: a cache of slices would hold
    // all 40 texts (≈ 40 MB) after a full collection; copies hold a few hundred short strings.
    const code = `
      const { buildChunks } = require(${JSON.stringify(join(__dirname, 'chunks.ts'))});
      global.gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 40; i++) {
        const names = Array.from({ length: 10 }, (_, k) => 'someLongIdentifier_' + i + '_' + k + ' = 1').join('\\n');
        buildChunks(names + '\\n' + 'plain words only here\\n'.repeat(46_000), []);
      }
      global.gc();
      console.log(JSON.stringify({ grownMb: (process.memoryUsage().heapUsed - before) / 1048576 }));`;
    const out = spawnSync(process.execPath, ['--expose-gc', '--require', 'tsx/cjs', '-e', code], { cwd: join(__dirname, '..', '..', '..', '..'), encoding: 'utf8', timeout: 60_000 });
    expect(out.stderr).not.toMatch(/Error/);
    const { grownMb } = JSON.parse(out.stdout.trim().split('\n').pop()!) as { grownMb: number };
    expect(grownMb).toBeLessThan(8);
  });
});
