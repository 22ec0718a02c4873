import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReviewView } from '../../../shared/contract';
import { byteSafeDiff } from '../../features/plans/byteSafeDiff';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { createTempCore } from '../../testing/tempCore';
import { createReviewHandlers, type ReviewableRun } from './review';

/**
 * Review on files as they are on disk (issue 22, items 1 and 3–7): a latin-1 file, an executable,
 * a CRLF file (eol=crlf), binary files, names git quotes, and a second hunk of a file applied after
 * the first. The run's change is made the way a run makes it (commits, then the run's byte-exact
 * diff), then taken out of the user's tree.
 */
const temp = createTempCore();
let repo: TestRepo;
let repoId: string;
let base: string;
const runs: Record<string, ReviewableRun> = {};

const numbered = (n: number, at: Record<number, string> = {}) => Array.from({ length: n }, (_, i) => at[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';
const latin = (line15: string) => Buffer.concat([Buffer.from('caf\xe9\n', 'latin1'), Buffer.from(numbered(28, { 14: line15 }), 'latin1'), Buffer.from('na\xefve\n', 'latin1')]);
const BIN = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 1, 2, 3]);
const QUOTED = ['quote"name.txt', 'tab\tname.txt', 'back\\slash.txt'];

beforeAll(async () => {
  repo = createTestRepo();
  repo.write('.gitattributes', 'win/*.txt eol=crlf\n');
  repo.write('latin.txt', latin('line 15'));
  repo.write('tool.sh', '#!/bin/sh\necho one\n');
  repo.write('win/notes.txt', 'first\nsecond\nthird\n');
  repo.write('data.bin', BIN);
  repo.write('two.txt', numbered(40));
  repo.write('auto.txt', 'one\ntwo\nthree\n');
  for (const name of QUOTED) repo.write(name, 'plain\n');
  chmodSync(join(repo.root, 'tool.sh'), 0o755);
  base = repo.commit('base');
  expect(repo.git('ls-files', '-s', 'tool.sh')).toMatch(/^100755 /);
  // The working tree as git checks it out: tool.sh executable, win/notes.txt with CRLF.
  repo.remove('tool.sh');
  repo.remove('win/notes.txt');
  repo.git('checkout', '-q', '--', '.');
  expect(readFileSync(join(repo.root, 'win/notes.txt'), 'latin1')).toBe('first\r\nsecond\r\nthird\r\n');

  // The runs, one per case: a commit on top of the base, its diff as a run keeps it, then the tree put back.
  const makeRun = async (id: string, change: () => void) => {
    change();
    const end = repo.commit(id);
    runs[id] = { baseCommit: base, diff: await byteSafeDiff(repo.root, base, end), steps: [] };
    repo.git('reset', '-q', '--hard', base);
  };
  await makeRun('latin', () => repo.write('latin.txt', latin('LINE 15')));
  await makeRun('mode', () => repo.write('tool.sh', '#!/bin/sh\necho two\n'));
  await makeRun('crlf', () => repo.write('win/notes.txt', 'first\r\nSECOND\r\nthird\r\n'));
  await makeRun('binary', () => {
    repo.write('data.bin', Buffer.concat([BIN, Buffer.from([0, 9, 9])]));
    repo.write('new.bin', Buffer.from([0, 1, 2, 0, 255]));
    repo.write('two.txt', numbered(40, { 20: 'LINE 20' }));
  });
  await makeRun('quoted', () => {
    for (const name of QUOTED) repo.write(name, 'changed\n');
  });
  await makeRun('autocrlf', () => repo.write('auto.txt', 'one\nTWO\nthree\n'));
  await makeRun('two', () => repo.write('two.txt', numbered(40, { 3: 'LINE 3', 30: 'LINE 30' })));

  const added = await temp.core.handlers['repos/add']({ path: repo.root });
  await temp.core.runs.wait(added.runId);
  repoId = added.repo.id;
}, 120_000);
afterAll(async () => {
  repo.cleanup();
  await temp.cleanup();
});
beforeEach(() => {
  repo.git('reset', '-q', '--hard', base);
  repo.git('clean', '-fdq');
});

const review = () => createReviewHandlers(temp.core.context, async (_repo, runId) => runs[runId]!);
const bytes = (path: string) => (existsSync(join(repo.root, path)) ? readFileSync(join(repo.root, path)) : null);
const file = (view: ReviewView, path: string) => view.files.find((f) => f.path === path)!;
const apply = async (runId: string, ids: string[]) => review()['review/apply']({ repoId, runId, accepted: ids });
const get = (runId: string) => review()['review/get']({ repoId, runId });

describe('review on bytes', () => {
  it('keeps every byte of a latin-1 file outside the accepted hunk, and undo restores them', async () => {
    const view = await get('latin');
    expect(file(view, 'latin.txt').hunks).toHaveLength(1);
    await apply('latin', file(view, 'latin.txt').hunks.map((h) => h.id));
    expect(bytes('latin.txt')!.equals(latin('LINE 15'))).toBe(true);
    await review()['review/undo']({ repoId });
    expect(bytes('latin.txt')!.equals(latin('line 15'))).toBe(true);
  });

  it('keeps the executable bit', async () => {
    const view = await get('mode');
    await apply('mode', file(view, 'tool.sh').hunks.map((h) => h.id));
    expect(bytes('tool.sh')!.toString()).toBe('#!/bin/sh\necho two\n');
    expect(statSync(join(repo.root, 'tool.sh')).mode & 0o111).toBe(0o111);
    expect(repo.git('status', '--porcelain')).toBe(' M tool.sh\n');
  });

  it('applies to an untouched CRLF file (eol=crlf) and writes it in the working tree\'s form', async () => {
    const view = await get('crlf');
    await apply('crlf', file(view, 'win/notes.txt').hunks.map((h) => h.id));
    expect(bytes('win/notes.txt')!.toString('latin1')).toBe('first\r\nSECOND\r\nthird\r\n');
  });

  it('applies to an untouched file checked out with CRLF by core.autocrlf=true', async () => {
    repo.git('config', 'core.autocrlf', 'true');
    try {
      repo.remove('auto.txt');
      repo.git('checkout', '-q', '--', 'auto.txt');
      expect(bytes('auto.txt')!.toString('latin1')).toBe('one\r\ntwo\r\nthree\r\n');
      const view = await get('autocrlf');
      await apply('autocrlf', file(view, 'auto.txt').hunks.map((h) => h.id));
      expect(bytes('auto.txt')!.toString('latin1')).toBe('one\r\nTWO\r\nthree\r\n');
    } finally {
      repo.git('config', '--unset', 'core.autocrlf');
    }
  });

  it('shows binary changes with their sizes and applies them explicitly', async () => {
    const view = await get('binary');
    expect(file(view, 'data.bin')).toMatchObject({ status: 'modified', binary: { before: 11, after: 14 } });
    expect(file(view, 'new.bin')).toMatchObject({ status: 'added', binary: { before: null, after: 5 } });
    expect(file(view, 'new.bin').hunks).toHaveLength(1);
    // A mixed run: every file listed, and accepting everything writes every file.
    expect(view.files.map((f) => f.path)).toEqual(['data.bin', 'new.bin', 'two.txt']);
    const result = await apply('binary', view.files.flatMap((f) => f.hunks.map((h) => h.id)));
    expect(result).toEqual({ written: ['data.bin', 'new.bin', 'two.txt'], hunks: 3 });
    expect(bytes('data.bin')!.equals(Buffer.concat([BIN, Buffer.from([0, 9, 9])]))).toBe(true);
    expect(bytes('new.bin')!.equals(Buffer.from([0, 1, 2, 0, 255]))).toBe(true);
  });

  it('writes files whose names git quotes to their own paths', async () => {
    const view = await get('quoted');
    expect(view.files.map((f) => f.path)).toEqual(expect.arrayContaining(QUOTED));
    await apply('quoted', QUOTED.flatMap((name) => file(view, name).hunks.map((h) => h.id)));
    for (const name of QUOTED) expect(bytes(name)?.toString()).toBe('changed\n');
    expect(repo.git('status', '--porcelain', '-z', '--untracked-files=all').split('\0').filter(Boolean).sort()).toEqual(QUOTED.map((n) => ` M ${n}`).sort());
  });

  it('applies a second hunk of a file after the first one', async () => {
    const view = await get('two');
    const [first, second] = file(view, 'two.txt').hunks;
    await apply('two', [first!.id]);
    expect(bytes('two.txt')!.toString()).toBe(numbered(40, { 3: 'LINE 3' }));
    expect(await apply('two', [second!.id])).toEqual({ written: ['two.txt'], hunks: 1 });
    expect(bytes('two.txt')!.toString()).toBe(numbered(40, { 3: 'LINE 3', 30: 'LINE 30' }));
    await review()['review/undo']({ repoId });
    expect(bytes('two.txt')!.toString()).toBe(numbered(40, { 3: 'LINE 3' }));
  });
});
