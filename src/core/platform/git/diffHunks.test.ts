import { afterEach, describe, expect, it } from 'vitest';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { changedLines, diffIdentifiers, parseHunks, touches } from './diffHunks';

let repo: TestRepo | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
});

const lines = (n: number, tag = 'l') => Array.from({ length: n }, (_, i) => `${tag}${i + 1}\n`).join('');

describe('changed lines of a commit (git diff -U0)', () => {
  it('records a replaced range as its old-side lines and an insertion as the two lines around the gap', async () => {
    repo = createTestRepo();
    repo.writeFiles({ 'x.py': lines(30), 'gone.py': 'a\n' });
    const parent = repo.commit('base');
    // Lines 3-4 replaced, line 10 replaced, three lines inserted after line 20, one line at the top.
    const next = lines(30).split('\n');
    next[2] = 'changed3';
    next[3] = 'changed4';
    next[9] = 'changed10';
    next.splice(20, 0, 'new a', 'new b', 'new c');
    repo.writeFiles({ 'x.py': `top\n${next.join('\n')}`, 'new.py': 'n\n' });
    repo.git('rm', '-q', 'gone.py');
    const commit = repo.commit('change');
    const changed = await changedLines(repo.root, parent, commit, ['x.py', 'new.py', 'gone.py']);
    expect(changed.get('x.py')).toEqual([
      { start: 1, end: 1, insertedAfter: 0 },
      { start: 3, end: 4 },
      { start: 10, end: 10 },
      { start: 20, end: 21, insertedAfter: 20 },
    ]);
    // A created file has no old side; a deleted one lost all its lines.
    expect(changed.has('new.py')).toBe(false);
    expect(changed.get('gone.py')).toEqual([{ start: 1, end: 1 }]);
    expect(await changedLines(repo.root, parent, commit, [])).toEqual(new Map());
  });

  it('reads a hunk header without a count as one line', () => {
    expect(parseHunks(['--- a/y.ts', '+++ b/y.ts', '@@ -7 +7 @@', '-a', '+b'].join('\n'))).toEqual(new Map([['y.ts', [{ start: 7, end: 7 }]]]));
  });
});

describe('whether a change touches a symbol', () => {
  const fn = { startLine: 3, endLine: 7 };
  it('counts changed lines that overlap the symbol', () => {
    expect(touches({ start: 7, end: 8 }, fn)).toBe(true);
    expect(touches({ start: 1, end: 3 }, fn)).toBe(true);
    expect(touches({ start: 8, end: 9 }, fn)).toBe(false);
    expect(touches({ start: 1, end: 2 }, fn)).toBe(false);
  });

  it('counts an insertion only strictly inside the body: not appended after its last line, not before its first', () => {
    expect(touches({ start: 5, end: 6, insertedAfter: 5 }, fn)).toBe(true);
    expect(touches({ start: 3, end: 4, insertedAfter: 3 }, fn)).toBe(true);
    expect(touches({ start: 7, end: 8, insertedAfter: 7 }, fn)).toBe(false);
    expect(touches({ start: 2, end: 3, insertedAfter: 2 }, fn)).toBe(false);
    // The same two lines changed (not an insertion) do touch it.
    expect(touches({ start: 7, end: 8 }, fn)).toBe(true);
  });
});

describe('identifiers of a diff', () => {
  it('reads added and removed lines only; bare names are not after a dot', () => {
    const ids = diffIdentifiers(['--- a/z.py', '+++ b/z.py', '@@ -1,2 +1,2 @@', ' context_name', '-old = nx.nodes', '+new = limit(x)'].join('\n'));
    expect([...ids.all].sort()).toEqual(['limit', 'new', 'nodes', 'nx', 'old', 'x']);
    expect([...ids.bare].sort()).toEqual(['limit', 'new', 'nx', 'old', 'x']);
  });
});
