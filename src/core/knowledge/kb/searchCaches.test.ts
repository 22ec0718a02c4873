import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexRepository } from '../indexer/indexer';
import { indexerDeps, makeIndexedRepo } from '../../testing/searchRepo';
import { KnowledgeBase } from './knowledgeBase';

/** What a term's per-file frequencies say, by path. */
function tfByPath(kb: KnowledgeBase, term: string): Record<string, number> {
  const out: Record<string, number> = {};
  const { fileIds, counts } = kb.searchIndex.termFrequencyPerFile(term);
  fileIds.forEach((fileId, i) => (out[kb.searchIndex.pathOf(fileId)!] = counts[i]!));
  return out;
}

describe('the search caches of a long-lived reader', () => {
  it('remember term frequencies and file rows until the index changes', async () => {
    const { root, curatedFile } = await makeIndexedRepo({ 'a.py': 'def widget():\n    return "widget"\n' });
    const kb = KnowledgeBase.open(curatedFile, 'r');
    try {
      kb.searchIndex.searchStats();
      expect(tfByPath(kb, 'widget')).toEqual({ 'a.py': 2 });
      // Asked again: the same rows (remembered, not read again).
      expect(kb.searchIndex.termFrequencyPerFile('widget')).toBe(kb.searchIndex.termFrequencyPerFile('widget'));
      const aId = kb.getFileByPath('a.py')!.id;
      expect(kb.searchIndex.pathAndLanguage(aId)).toEqual({ path: 'a.py', language: 'python' });

      // The index changes under the open connection: the next search sees the new text and files.
      writeFileSync(join(root, 'b.py'), 'def widget_factory():\n    return widget() + widget()\n');
      writeFileSync(join(root, 'a.py'), 'def gadget():\n    return 1\n');
      await indexRepository({ root, curatedFile, ...indexerDeps() });
      kb.searchIndex.searchStats();
      expect(tfByPath(kb, 'widget')).toEqual({ 'b.py': 3 });
      const bId = kb.getFileByPath('b.py')!.id;
      expect(kb.searchIndex.pathAndLanguage(bId)).toEqual({ path: 'b.py', language: 'python' });
      expect(kb.searchIndex.pathAndLanguage(-1)).toBeUndefined();
    } finally {
      kb.close();
    }
  });

  it('reads the chunk holding a line as the whole list of a file would give it', async () => {
    const body = Array.from({ length: 40 }, (_, i) => `def f${i}(x):\n    y = x + ${i}\n    return y * ${i}\n\n`).join('');
    const { curatedFile } = await makeIndexedRepo({ 'm.py': body, 'empty.py': '' });
    const kb = KnowledgeBase.open(curatedFile, 'r');
    try {
      const id = kb.getFileByPath('m.py')!.id;
      const chunks = kb.getChunksOfFile(id);
      expect(chunks.length).toBeGreaterThan(1);
      const lines = chunks.at(-1)!.endLine + 3;
      for (let line = 0; line <= lines; line++) {
        const expected = chunks.find((c) => c.startLine <= line && line <= c.endLine) ?? chunks[0];
        expect(kb.getChunkOfFileAt(id, line)).toEqual(expected);
      }
      expect(kb.getChunkOfFileAt(id, null)).toEqual(chunks[0]);
      const empty = kb.getFileByPath('empty.py');
      if (empty) expect(kb.getChunkOfFileAt(empty.id, 1)).toBeUndefined();
      expect(kb.getChunkOfFileAt(-1, null)).toBeUndefined();
    } finally {
      kb.close();
    }
  });

  it('reads the symbols around a line as the filtered list of all the symbols of a file would give them', async () => {
    const body = ['import os', 'from json import loads', ...Array.from({ length: 12 }, (_, i) => `class C${i}:\n    def m${i}(self, x):\n        return os.path.join(x, loads("[]"))\n`)].join('\n');
    const { curatedFile } = await makeIndexedRepo({ 'k.py': body });
    const kb = KnowledgeBase.open(curatedFile, 'r');
    try {
      const id = kb.getFileByPath('k.py')!.id;
      const symbols = kb.getSymbolsForFile(id).filter((s) => s.kind !== 'import');
      expect(symbols.length).toBeGreaterThan(12);
      const last = Math.max(...symbols.map((s) => s.endLine)) + 2;
      for (const line of [null, ...Array.from({ length: last + 1 }, (_, i) => i)]) {
        const around = line === null ? [] : symbols.filter((s) => s.startLine <= line && line <= s.endLine);
        expect(kb.getSymbolsAround(id, line, 3)).toEqual((around.length ? around : symbols).slice(0, 3));
      }
    } finally {
      kb.close();
    }
  });
});
