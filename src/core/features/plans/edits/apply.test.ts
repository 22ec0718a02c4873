import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWorktrees } from '../../../platform/git';
import { createTestRepo, type TestRepo } from '../../../testing/gitRepo';
import { applyEditsIsolated, parseEdits } from './apply';
import { parseEditBlocks } from './blocks';

let repo: TestRepo;
let scratch: string;
let root: string;
let outside: string;

const CALC = 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n';

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cra-edits-'));
  root = join(scratch, 'worktrees');
  outside = join(scratch, 'outside');
  repo = createTestRepo();
  repo.writeFiles({ 'calc.py': CALC, 'twice.py': 'x = 1\nx = 1\n', '.gitignore': 'build/\n' });
  symlinkSync(scratch, join(repo.root, 'escape'));
  repo.commit('initial');
  // The user's uncommitted work, staged and not: a run must leave both exactly as they are.
  repo.write('calc.py', `${CALC}# user's note\n`);
  repo.write('staged.txt', 'staged\n');
  repo.git('add', 'staged.txt');
});
afterAll(() => {
  repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** What the user has: status, staged diff, the working file. */
const userState = () => ({ status: repo.git('status', '--porcelain'), staged: repo.git('diff', '--cached'), calc: readFileSync(join(repo.root, 'calc.py'), 'utf8') });

const block = (path: string, search: string, replace: string) => `${path}\n\`\`\`python\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n\`\`\`\n`;

describe('applyEditsIsolated', () => {
  it('applies a change and a new file (in an ignored folder) at HEAD in a worktree and returns the diff; the user tree is untouched', async () => {
    const before = userState();
    const reply = `I will change sub.\n${block('calc.py', 'def sub(a, b):\n    return a - b', 'def sub(a, b):\n    """Subtract."""\n    return a - b')}\n${block('build/notes.md', '', '# Notes')}`;
    const result = await applyEditsIsolated({ repo: repo.root, root, edits: reply });
    expect(result).toMatchObject({ ok: true, files: ['calc.py', 'build/notes.md'] });
    if (!result.ok) return;
    expect(result.diff).toContain('diff --git a/calc.py b/calc.py');
    expect(result.diff).toContain(' def sub(a, b):\n+    """Subtract."""\n     return a - b');
    // Applied at HEAD: the user's uncommitted note is not in the worktree's version.
    expect(result.diff).not.toContain("user's note");
    expect(result.diff).toContain('diff --git a/build/notes.md b/build/notes.md\nnew file mode 100644');
    expect(result.diff).toContain('+# Notes');
    expect(userState()).toEqual(before);
    expect(existsSync(join(repo.root, 'build'))).toBe(false);
    expect(listWorktrees(root)).toEqual([]);
  });

  it.each([
    ['a SEARCH that matches nowhere', block('calc.py', 'def mul(a, b):', 'def mul(x, y):'), /edit block 2 \(calc\.py\): the SEARCH text was not found/],
    ['a SEARCH that matches twice', block('twice.py', 'x = 1', 'x = 2'), /edit block 2 \(twice\.py\): the SEARCH text matches more than one place/],
    ['a path out of the repository through ..', block('../outside/evil.py', '', 'bad'), /edit block 2 \(\.\.\/outside\/evil\.py\): .*leads outside the repository/],
    ['an absolute path', block('/tmp/cra-edit-absolute/evil.py', '', 'bad'), /is an absolute path/],
    ['a path into .git', block('.git/hooks/pre-commit', '', 'bad'), /inside a \.git folder/],
    ['a path through a symbolic link out of the repository', block('escape/outside/evil.py', '', 'bad'), /symbolic link .* points outside the repository/],
    ['an empty SEARCH for an existing file', block('calc.py', '', 'x'), /SEARCH is empty but the file exists/],
  ])('refuses %s as a failed attempt and writes nothing, the valid block before it included', async (_name, bad, reason) => {
    const before = userState();
    const good = block('calc.py', '    return a + b', '    return b + a');
    const result = await applyEditsIsolated({ repo: repo.root, root, edits: `${good}\n${bad}`, keep: true });
    try {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(reason);
      // Nothing written in the worktree: not even the first, valid block.
      expect(readFileSync(join(result.worktree!.path, 'calc.py'), 'utf8')).toBe(CALC);
      expect(repo.git('-C', result.worktree!.path, 'status', '--porcelain')).toBe('');
    } finally {
      await result.worktree?.remove();
    }
    expect(userState()).toEqual(before);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync('/tmp/cra-edit-absolute')).toBe(false);
    expect(existsSync(join(repo.root, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });
});

describe('parseEditBlocks', () => {
  it('takes the path from the line before the block, past a fence, with bold or backticks removed', () => {
    const reply = `<think>plan it</think>**src/a.py**\n\`\`\`\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n\`\`\`\nFile: \`b.ts\`\n<<<<<<< SEARCH\n=======\nexport {};\n>>>>>>> REPLACE\n`;
    expect(parseEditBlocks(reply)).toEqual({
      ok: true,
      blocks: [
        { index: 1, path: 'src/a.py', search: 'old', replace: 'new' },
        { index: 2, path: 'b.ts', search: '', replace: 'export {};' },
      ],
    });
  });

  it('refuses a reply without blocks, a block without a path and an unclosed block', () => {
    expect(parseEditBlocks('Just change it.')).toEqual({ ok: false, reason: expect.stringContaining('the reply has no edit block') });
    expect(parseEditBlocks('<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE')).toEqual({ ok: false, reason: 'edit block 1 has no file path on the line before <<<<<<< SEARCH' });
    expect(parseEditBlocks('a.py\n<<<<<<< SEARCH\na\n=======\nb\n')).toEqual({ ok: false, reason: 'edit block 1 (a.py) is not closed by >>>>>>> REPLACE' });
  });
});

describe('unified diffs', () => {
  const udiff = (path: string, hunk: string, from = `a/${path}`) => `Here is the change:\n\`\`\`diff\n--- ${from}\n+++ b/${path}\n${hunk}\n\`\`\`\nDone.`;
  const SUB_DOC = '@@ -4,3 +4,4 @@\n \n def sub(a, b):\n+    """Subtract."""\n     return a - b';

  it('applies a fenced diff after prose, creates a file from /dev/null and deletes one to /dev/null, and returns the diff', async () => {
    const before = userState();
    const reply = `${udiff('calc.py', SUB_DOC)}\n\`\`\`diff\n--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1,2 @@\n+# New\n+text\n--- a/twice.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x = 1\n-x = 1\n\`\`\``;
    const result = await applyEditsIsolated({ repo: repo.root, root, edits: reply });
    expect(result).toMatchObject({ ok: true, files: ['calc.py', 'docs/new.md', 'twice.py'] });
    if (!result.ok) return;
    expect(result.diff).toContain(' def sub(a, b):\n+    """Subtract."""');
    expect(result.diff).toContain('diff --git a/docs/new.md b/docs/new.md\nnew file mode 100644');
    expect(result.diff).toContain('diff --git a/twice.py b/twice.py\ndeleted file mode 100644');
    expect(userState()).toEqual(before);
  });

  it.each([
    ['a hunk whose context does not match', udiff('calc.py', '@@ -1,2 +1,2 @@\n-def mul(a, b):\n+def mul(x, y):\n     return a * b'), /diff 2 \(calc\.py\): a hunk does not match/],
    ['a path out of the repository through ..', udiff('../outside/evil.py', '@@ -0,0 +1 @@\n+bad', '/dev/null'), /diff 2 \(\.\.\/outside\/evil\.py\): .*leads outside the repository/],
    ['a path into .git', udiff('.git/hooks/pre-commit', '@@ -0,0 +1 @@\n+bad', '/dev/null'), /diff 2 \(\.git\/hooks\/pre-commit\): .*inside a \.git folder/],
    ['a path through a symbolic link out of the repository', udiff('escape/outside/evil.py', '@@ -0,0 +1 @@\n+bad', '/dev/null'), /diff 2 \(escape\/outside\/evil\.py\): .*symbolic link .* points outside the repository/],
    ['a new file that exists', udiff('calc.py', '@@ -0,0 +1 @@\n+bad', '/dev/null'), /diff 2 \(calc\.py\): the diff creates the file/],
  ])('refuses %s as a failed attempt and writes nothing, the valid diff before it included', async (_name, bad, reason) => {
    const before = userState();
    const result = await applyEditsIsolated({ repo: repo.root, root, edits: `${udiff('calc.py', SUB_DOC)}\n${bad}`, keep: true });
    try {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(reason);
      expect(readFileSync(join(result.worktree!.path, 'calc.py'), 'utf8')).toBe(CALC);
      expect(repo.git('-C', result.worktree!.path, 'status', '--porcelain')).toBe('');
    } finally {
      await result.worktree?.remove();
    }
    expect(userState()).toEqual(before);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(repo.root, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('reads search/replace blocks as such even when their text holds diff-like lines', () => {
    expect(parseEdits(`a.py\n<<<<<<< SEARCH\n+++ b/x\n@@ -1 +1 @@\n=======\nnew\n>>>>>>> REPLACE\n`)).toMatchObject({ ok: true, format: 'search-replace' });
    expect(parseEdits('no edits here')).toEqual({ ok: false, reason: expect.stringContaining('the reply has no edit block') });
  });
});

describe('edits to a file that is not UTF-8', () => {
  it('keep every byte outside the edit (latin-1), for blocks and unified diffs', async () => {
    const latin = createTestRepo();
    const bytes = (text: string) => Buffer.from(text, 'latin1');
    try {
      latin.write('menu.txt', bytes('caf\xe9\nprice 3\nna\xefve\n'));
      latin.commit('menu');
      const byBlock = await applyEditsIsolated({ repo: latin.root, root, edits: block('menu.txt', 'price 3', 'price 4'), keep: true });
      try {
        expect(byBlock.ok).toBe(true);
        expect(readFileSync(join(byBlock.worktree!.path, 'menu.txt')).equals(bytes('caf\xe9\nprice 4\nna\xefve\n'))).toBe(true);
      } finally {
        await byBlock.worktree?.remove();
      }
      const byDiff = await applyEditsIsolated({ repo: latin.root, root, edits: '--- a/menu.txt\n+++ b/menu.txt\n@@ -2 +2 @@\n-price 3\n+price 5 \u20ac\n', keep: true });
      try {
        expect(byDiff.ok).toBe(true);
        // The model's own text is written as UTF-8; the file's other bytes stay latin-1.
        expect(readFileSync(join(byDiff.worktree!.path, 'menu.txt')).equals(Buffer.concat([bytes('caf\xe9\nprice 5 '), Buffer.from('\u20ac', 'utf8'), bytes('\nna\xefve\n')]))).toBe(true);
      } finally {
        await byDiff.worktree?.remove();
      }
    } finally {
      latin.cleanup();
    }
  });
});
