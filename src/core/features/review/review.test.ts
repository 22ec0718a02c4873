import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/contract';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { applyReviewed, readUndo, undoLastApply } from './apply';
import { composeAccepted, reviewFile, reviewFiles, type ChangedFile } from './hunks';

/** A changed file from texts (UTF-8). */
const cf = (path: string, before: string | null, after: string | null): ChangedFile => ({ path, before: before === null ? null : Buffer.from(before), after: after === null ? null : Buffer.from(after) });
/** A composed content as text. */
const text = (bytes: Buffer | null) => (bytes === null ? null : bytes.toString('utf8'));

const lines = (n: number, at: Record<number, string> = {}) =>
  Array.from({ length: n }, (_, i) => at[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

describe('review hunks', () => {
  const before = lines(40);
  const after = lines(40, { 3: 'LINE 3', 30: 'LINE 30' });

  it('cuts a change into hunks with stable ids and a git-style diff', () => {
    const file = reviewFile(cf('src/a.ts', before, after));
    expect(file.status).toBe('modified');
    expect(file.hunks).toHaveLength(2);
    expect(file.hunks.map((h) => h.oldStart)).toEqual([1, 27]);
    expect(reviewFile(cf('src/a.ts', before, after)).hunks.map((h) => h.id)).toEqual(file.hunks.map((h) => h.id));
    expect(file.diff).toContain('--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,6 +1,6 @@');
    expect(file.diff).toContain('-line 30\n+LINE 30');
  });

  it('composes every subset of hunks exactly', () => {
    const file = cf('a.txt', before, after);
    const [first, second] = reviewFile(file).hunks;
    const hunks = reviewFile(file).hunks;
    expect(text(composeAccepted(file, hunks, new Set()))).toBe(before);
    expect(text(composeAccepted(file, hunks, new Set([first!.id, second!.id])))).toBe(after);
    expect(text(composeAccepted(file, hunks, new Set([first!.id])))).toBe(lines(40, { 3: 'LINE 3' }));
    expect(text(composeAccepted(file, hunks, new Set([second!.id])))).toBe(lines(40, { 30: 'LINE 30' }));
  });

  it('keeps insertions, deletions and a missing final newline right for a partial accept', () => {
    const b = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm';
    const a = 'new first\na\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nlast';
    const file = cf('x', b, a);
    const hunks = reviewFile(file).hunks;
    expect(hunks).toHaveLength(2);
    expect(text(composeAccepted(file, hunks, new Set([hunks[0]!.id])))).toBe(`new first\n${b}`);
    expect(text(composeAccepted(file, hunks, new Set([hunks[1]!.id])))).toBe(`${b}\nlast`);
    const deleting = cf('y', lines(30), lines(30).replace('line 2\n', '').replace('line 29\n', ''));
    const dh = reviewFile(deleting).hunks;
    expect(text(composeAccepted(deleting, dh, new Set([dh[1]!.id])))).toBe(lines(30).replace('line 29\n', ''));
  });

  it('composes any subset of hunks of random changes into exactly those changes (property)', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const changed = (text: string) => text.split('\n').filter((l) => l.startsWith('+') || l.startsWith('-')).filter((l) => !l.startsWith('+++') && !l.startsWith('---')).sort();
    for (let round = 0; round < 200; round++) {
      const source = Array.from({ length: 5 + Math.floor(random() * 60) }, (_, i) => `l${i} ${Math.floor(random() * 3)}`);
      const target: string[] = [];
      for (const line of source) {
        const r = random();
        if (r < 0.08) continue; // deleted
        if (r < 0.16) target.push(`changed ${line}`);
        else target.push(line);
        if (random() < 0.06) target.push(`inserted ${round}`);
      }
      const file = cf('p', source.join('\n') + '\n', target.join('\n') + (random() < 0.2 ? '' : '\n'));
      const hunks = reviewFile(file).hunks;
      const subset = new Set(hunks.filter(() => random() < 0.5).map((h) => h.id));
      const result = composeAccepted(file, hunks, subset);
      const expected = hunks.filter((h) => subset.has(h.id)).flatMap((h) => h.lines.filter((l) => l[0] === '+' || l[0] === '-')).sort();
      expect(changed(reviewFile({ path: 'p', before: file.before, after: result }).diff)).toEqual(expected);
    }
  });

  it('treats created and deleted files as one hunk each, and leaves unchanged files out', () => {
    const files = reviewFiles([
      cf('new.ts', null, 'export {}\n'),
      cf('old.ts', 'x\n', null),
      cf('same.ts', 'y\n', 'y\n'),
    ]);
    expect(files.map((f) => [f.path, f.status, f.hunks.length])).toEqual([
      ['new.ts', 'added', 1],
      ['old.ts', 'deleted', 1],
    ]);
    expect(files[0]!.diff).toContain('--- /dev/null\n+++ b/new.ts');
  });
});

describe('applying reviewed hunks to the working tree', () => {
  let repo: TestRepo;
  let data: string;
  let undoFile: string;
  const before = lines(40);
  const after = lines(40, { 3: 'LINE 3', 30: 'LINE 30' });

  beforeEach(() => {
    repo = createTestRepo();
    repo.writeFiles({ 'src/a.txt': before, 'src/gone.txt': 'bye\n' });
    repo.commit('start');
    data = mkdtempSync(join(tmpdir(), 'cra-review-'));
    undoFile = join(data, 'review', 'undo.json');
  });
  afterEach(() => {
    repo.cleanup();
    rmSync(data, { recursive: true, force: true });
  });

  const change = (): ChangedFile[] => [
    cf('src/a.txt', before, after),
    cf('src/new.txt', null, 'fresh\n'),
    cf('src/gone.txt', 'bye\n', null),
  ];
  const read = (path: string) => (existsSync(join(repo.root, path)) ? readFileSync(join(repo.root, path), 'utf8') : null);

  it('writes exactly the accepted hunks, and undo puts everything back', () => {
    const files = reviewFiles(change());
    const a = files.find((f) => f.path === 'src/a.txt')!;
    const created = files.find((f) => f.path === 'src/new.txt')!;
    const result = applyReviewed({ repo: repo.root, files: change(), accepted: [a.hunks[1]!.id, created.hunks[0]!.id], undoFile, runId: 'r1' });
    expect(result).toEqual({ written: ['src/a.txt', 'src/new.txt'], hunks: 2 });
    expect(read('src/a.txt')).toBe(lines(40, { 30: 'LINE 30' }));
    expect(read('src/new.txt')).toBe('fresh\n');
    expect(read('src/gone.txt')).toBe('bye\n'); // its deletion was rejected
    expect(repo.git('status', '--porcelain')).toBe(' M src/a.txt\n?? src/new.txt\n');
    expect(readUndo(undoFile)?.runId).toBe('r1');

    expect(undoLastApply(repo.root, undoFile).restored).toEqual(['src/a.txt', 'src/new.txt']);
    expect(read('src/a.txt')).toBe(before);
    expect(read('src/new.txt')).toBeNull();
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(readUndo(undoFile)).toBeNull();
  });

  it('applies an accepted deletion', () => {
    const gone = reviewFiles(change()).find((f) => f.path === 'src/gone.txt')!;
    applyReviewed({ repo: repo.root, files: change(), accepted: [gone.hunks[0]!.id], undoFile, runId: 'r1' });
    expect(read('src/gone.txt')).toBeNull();
  });

  it('refuses, writing nothing, when a file changed since the run started', () => {
    repo.write('src/a.txt', before.replace('line 10', 'my own edit'));
    const ids = reviewFiles(change()).flatMap((f) => f.hunks.map((h) => h.id));
    let error: unknown;
    try {
      applyReviewed({ repo: repo.root, files: change(), accepted: ids, undoFile, runId: 'r1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('CONFLICT');
    expect((error as AppError).message).toMatch(/src\/a\.txt changed in the working tree since the run started; nothing was applied/);
    expect(read('src/a.txt')).toContain('my own edit');
    expect(read('src/new.txt')).toBeNull();
    expect(read('src/gone.txt')).toBe('bye\n');
    expect(readUndo(undoFile)).toBeNull();
  });

  it('refuses an unknown hunk id and a path out of the repository', () => {
    expect(() => applyReviewed({ repo: repo.root, files: change(), accepted: ['src/a.txt#0:0000000000'], undoFile, runId: 'r1' })).toThrow(/No hunk of this run has the id/);
    const escaping: ChangedFile[] = [cf('../outside.txt', null, 'x\n')];
    const id = reviewFiles(escaping)[0]!.hunks[0]!.id;
    expect(() => applyReviewed({ repo: repo.root, files: escaping, accepted: [id], undoFile, runId: 'r1' })).toThrow(/outside the repository/);
    const intoGit: ChangedFile[] = [cf('.git/hooks/pre-commit', null, 'x\n')];
    const gid = reviewFiles(intoGit)[0]!.hunks[0]!.id;
    expect(() => applyReviewed({ repo: repo.root, files: intoGit, accepted: [gid], undoFile, runId: 'r1' })).toThrow(/\.git/);
  });

  it('does not write through a symbolic link swapped in for a file', () => {
    const outside = mkdtempSync(join(tmpdir(), 'cra-review-out-'));
    writeFileSync(join(outside, 'target.txt'), before);
    rmSync(join(repo.root, 'src/a.txt'));
    symlinkSync(join(outside, 'target.txt'), join(repo.root, 'src/a.txt'));
    const ids = reviewFiles(change()).find((f) => f.path === 'src/a.txt')!.hunks.map((h) => h.id);
    expect(() => applyReviewed({ repo: repo.root, files: change(), accepted: ids, undoFile, runId: 'r1' })).toThrow(AppError);
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe(before);
    rmSync(outside, { recursive: true, force: true });
  });

  it('still undoes an apply recorded in the first format (text contents, no modes)', () => {
    repo.write('src/a.txt', after);
    mkdirSync(join(data, 'review'), { recursive: true });
    writeFileSync(undoFile, JSON.stringify({ runId: 'r0', appliedAt: '2024-01-01T00:00:00Z', files: [{ path: 'src/a.txt', previous: before, written: after }] }));
    expect(undoLastApply(repo.root, undoFile)).toEqual({ restored: ['src/a.txt'], runId: 'r0' });
    expect(read('src/a.txt')).toBe(before);
  });

  it('refuses to undo over edits made after the apply', () => {
    const ids = reviewFiles(change()).flatMap((f) => f.hunks.map((h) => h.id));
    applyReviewed({ repo: repo.root, files: change(), accepted: ids, undoFile, runId: 'r1' });
    repo.write('src/new.txt', 'edited after\n');
    expect(() => undoLastApply(repo.root, undoFile)).toThrow(/src\/new\.txt changed since the apply; nothing was undone/);
    expect(read('src/a.txt')).toBe(after);
    expect(() => undoLastApply(repo.root, join(data, 'none.json'))).toThrow(/no apply to undo/);
  });
});

describe('a change rebuilt from a run diff', () => {
  it('reads the content before from the base commit and applies each file patch to it', async () => {
    const { changedFilesFromDiff } = await import('./fromDiff');
    const repo = createTestRepo();
    try {
      repo.writeFiles({ 'a.txt': lines(20), 'gone.txt': 'bye\n' });
      const base = repo.commit('base');
      repo.write('a.txt', lines(20, { 5: 'FIVE' }));
      repo.remove('gone.txt');
      repo.write('new.txt', 'fresh\n');
      repo.git('add', '-A');
      const diff = repo.git('diff', '--cached', '--no-renames');
      repo.git('reset', '-q', '--hard');
      repo.write('a.txt', 'the user edited this since\n'); // not read: the base commit is
      const files = await changedFilesFromDiff(repo.root, base, diff);
      expect(files.map((f) => ({ path: f.path, before: text(f.before), after: text(f.after) }))).toEqual([
        { path: 'a.txt', before: lines(20), after: lines(20, { 5: 'FIVE' }) },
        { path: 'gone.txt', before: 'bye\n', after: null },
        { path: 'new.txt', before: null, after: 'fresh\n' },
      ]);
      await expect(changedFilesFromDiff(repo.root, base, diff.replace('-line 5', '-line 6'))).rejects.toThrow(/The diff of a\.txt does not apply to commit/);
    } finally {
      repo.cleanup();
    }
  });
});
