import { describe, expect, it } from 'vitest';
import { formatPhases, phaseTotals, type CpuProfile } from './indexProfile';

const frame = (functionName: string, url = '') => ({ functionName, url });

describe('index profile phases', () => {
  it('gives each sample the phase of its innermost recognisable frame, across thread profiles', () => {
    // root → runInTransaction → writePrepared (store.ts) ; root → prepareFile → extract → Parser.parse → wasm
    const engine: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 5, 7, 8] },
        { id: 2, callFrame: frame('runInTransaction', 'file:///x/src/core/knowledge/indexer/indexer.ts'), children: [3] },
        { id: 3, callFrame: frame('writeExtraction', 'file:///x/src/core/knowledge/indexer/store.ts'), children: [4] },
        { id: 4, callFrame: frame('run', 'file:///x/node_modules/better-sqlite3/lib/methods/wrappers.js') },
        { id: 5, callFrame: frame('runSpec', 'file:///x/src/core/knowledge/indexer/extract/extractor.ts'), children: [6] },
        { id: 6, callFrame: frame('captures', 'file:///x/node_modules/web-tree-sitter/tree-sitter.cjs') },
        { id: 7, callFrame: frame('(garbage collector)') },
        { id: 8, callFrame: frame('resolveName', 'file:///x/src/core/knowledge/indexer/link.ts'), children: [9] },
        { id: 9, callFrame: frame('chunkOf', 'file:///x/src/core/knowledge/indexer/chunks.ts') },
      ],
      samples: [4, 4, 6, 7, 1, 8, 9],
      timeDeltas: [1000, 1000, 3000, 500, 250, 1500, 750],
    };
    const worker: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2] },
        { id: 2, callFrame: frame('extract', 'file:///x/src/core/knowledge/indexer/extract/extractor.ts'), children: [3] },
        { id: 3, callFrame: frame('parse', 'file:///x/node_modules/web-tree-sitter/tree-sitter.cjs'), children: [4] },
        { id: 4, callFrame: frame('ts_parser_parse_wasm', 'wasm://wasm/tree-sitter.wasm-000c8ac2') },
        // The search index thread (the parse worker's entry in another role) writes.
        { id: 5, callFrame: frame('start', 'file:///x/src/core/knowledge/indexer/parse/parseWorker.ts'), children: [6] },
        { id: 6, callFrame: frame('runChunkIndexThread', 'file:///x/src/core/knowledge/indexer/chunkIndexThread.ts') },
      ],
      samples: [4, 4, 6],
      timeDeltas: [2000, 2000, 1000],
    };
    const totals = phaseTotals([engine, worker]);
    expect(Object.fromEntries(totals)).toEqual({ 'write (SQLite, FTS)': 3, 'query (tree-sitter walk)': 3, gc: 0.5, other: 0.25, 'parse (tree-sitter)': 4, 'link (imports, references)': 1.5, chunk: 0.75 });
    const table = formatPhases(totals);
    expect(table.split('\n')[0]).toMatch(/^parse \(tree-sitter\)\s+4 ms\s+30\.8%$/);
  });
});
