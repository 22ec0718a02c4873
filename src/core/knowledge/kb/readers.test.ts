import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexRepository } from '../indexer/indexer';
import { indexerDeps, makeIndexedRepo } from '../../testing/searchRepo';
import { KbReaders } from './readers';

describe('KbReaders', () => {
  it('lends one reader per repository, which sees an index rebuilt in place', async () => {
    const { root, curatedFile } = await makeIndexedRepo({ 'a.py': 'def alpha():\n    return 1\n' });
    const readers = new KbReaders();
    try {
      const first = readers.lease('r', curatedFile);
      const second = readers.lease('r', curatedFile);
      expect(second.kb).toBe(first.kb);
      expect(readers.get('r', curatedFile)).toBe(first.kb);
      expect(first.kb.getFileByPath('b.py')).toBeNull();
      writeFileSync(join(root, 'b.py'), 'def beta():\n    return 2\n');
      await indexRepository({ root, curatedFile, ...indexerDeps() });
      // The same connection, and the new file is there (no stale statement or statistics).
      expect(readers.lease('r', curatedFile).kb).toBe(first.kb);
      expect(first.kb.getFileByPath('b.py')).not.toBeNull();
      first.release();
      second.release();
    } finally {
      readers.closeAll();
    }
  });

  it('opens a new reader for a replaced index file and closes the old one when its last lease ends', async () => {
    const { curatedFile } = await makeIndexedRepo({ 'a.py': 'def alpha():\n    return 1\n' });
    const { curatedFile: other } = await makeIndexedRepo({ 'b.py': 'def beta():\n    return 2\n' });
    const readers = new KbReaders();
    try {
      const held = readers.lease('r', curatedFile);
      // The repository removed and indexed again: another file (inode) at the same path.
      const copy = `${curatedFile}.new`;
      copyFileSync(other, copy);
      rmSync(curatedFile);
      copyFileSync(copy, curatedFile);
      const fresh = readers.lease('r', curatedFile);
      expect(fresh.kb).not.toBe(held.kb);
      expect(fresh.kb.getFileByPath('b.py')).not.toBeNull();
      // The turn still holding the old reader can finish reading it...
      expect(held.kb.getFileByPath('a.py')).not.toBeNull();
      held.release();
      // ...and then it is closed.
      expect(() => held.kb.getFileByPath('a.py')).toThrow(/not open/);
      fresh.release();
      expect(fresh.kb.getFileByPath('b.py')).not.toBeNull();
      readers.drop('r');
      expect(() => fresh.kb.getFileByPath('b.py')).toThrow(/not open/);
    } finally {
      readers.closeAll();
    }
  });

  it('keeps a dropped reader open while it is lent', async () => {
    const { curatedFile } = await makeIndexedRepo({ 'a.py': 'def alpha():\n    return 1\n' });
    const readers = new KbReaders();
    const lease = readers.lease('r', curatedFile);
    readers.drop('r');
    expect(lease.kb.getFileByPath('a.py')).not.toBeNull();
    lease.release();
    lease.release();
    expect(() => lease.kb.getFileByPath('a.py')).toThrow(/not open/);
    expect(readers.lease('r', curatedFile).kb).not.toBe(lease.kb);
    readers.closeAll();
  });
});
