import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findIndexedRepo } from './indexed';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe('findIndexedRepo (cra search --repo, cra embed)', () => {
  it('says a missing path does not exist instead of suggesting to index it, and writes nothing', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-find-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const missing = join(dataDir, 'no-such-repo');
    let failure: unknown;
    try {
      findIndexedRepo(dataDir, missing);
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ code: 'NOT_FOUND', message: `${missing} does not exist; give the folder of an indexed repository (--repo PATH).` });
    expect(existsSync(join(dataDir, 'repos.sqlite'))).toBe(false);
  });

  it('still tells how to index an existing folder that is not indexed', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-find-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    expect(() => findIndexedRepo(dataDir, dataDir)).toThrow(expect.objectContaining({ code: 'NOT_INDEXED', message: expect.stringContaining('run `cra index') }));
  });
});
