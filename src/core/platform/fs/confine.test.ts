import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { confinePath, readConfinedFile, readConfinedText } from './confine';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** A real git repository with one tracked file, and a secret file outside it. */
function setup(): { repo: TestRepo; outside: string; secret: string } {
  const repo = createTestRepo();
  cleanups.push(() => repo.cleanup());
  const outside = mkdtempSync(join(tmpdir(), 'cra-outside-'));
  cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
  const secret = join(outside, 'secret.txt');
  writeFileSync(secret, 'TOP SECRET\n');
  repo.write('src/a.ts', 'export const a = 1;\n');
  repo.commit('initial');
  return { repo, outside, secret };
}

describe('confinePath', () => {
  it('resolves a file inside the repository to its real path', () => {
    const { repo } = setup();
    const confined = confinePath(repo.root, 'src/./a.ts');
    expect(confined).toMatchObject({ relative: 'src/a.ts', exists: true });
    expect(readConfinedFile(repo.root, 'src/a.ts', 100).bytes.toString()).toBe('export const a = 1;\n');
  });

  it('refuses a file replaced by a symbolic link to a file outside the repository', () => {
    const { repo, secret } = setup();
    rmSync(join(repo.root, 'src/a.ts'));
    symlinkSync(secret, join(repo.root, 'src/a.ts'));
    expect(() => confinePath(repo.root, 'src/a.ts')).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('points outside the repository') }));
    expect(() => readConfinedFile(repo.root, 'src/a.ts', 100)).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  });

  it('refuses a path below a symbolic link to a folder outside, and a relative link that climbs out', () => {
    const { repo, outside } = setup();
    symlinkSync(outside, join(repo.root, 'linked'));
    expect(() => confinePath(repo.root, 'linked/secret.txt')).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    // Also for a file that does not exist yet (a future write below the link).
    expect(() => confinePath(repo.root, 'linked/new.txt', { allowMissing: true })).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    // src/up -> the temp folder that holds both the repository's parent folder and `outside`.
    symlinkSync('../../..', join(repo.root, 'src/up'));
    const base = repo.root.split('/').slice(-2, -1)[0];
    expect(confinePath(repo.root, `src/up/${base}/repo/src/a.ts`).relative).toBe('src/a.ts'); // back inside: fine
    expect(() => readConfinedFile(repo.root, `src/up/${outside.split('/').pop()}/secret.txt`, 100)).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  });

  it('accepts a symbolic link that stays inside the repository', () => {
    const { repo } = setup();
    symlinkSync('a.ts', join(repo.root, 'src/alias.ts'));
    expect(confinePath(repo.root, 'src/alias.ts').relative).toBe('src/a.ts');
  });

  it('refuses .. escapes and absolute paths before touching the file system', () => {
    const { repo, secret } = setup();
    for (const bad of ['../secret.txt', 'src/../../secret.txt', '..', 'src/..\\..\\x']) {
      expect(() => confinePath(repo.root, bad), bad).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('outside the repository') }));
    }
    expect(() => confinePath(repo.root, secret)).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('absolute path') }));
    expect(() => confinePath(repo.root, 'C:\\Windows\\win.ini')).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('absolute path') }));
    expect(() => confinePath(repo.root, 'src/../src/a.ts')).not.toThrow();
    expect(() => confinePath(repo.root, '')).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    expect(() => confinePath(repo.root, 'a\0b')).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  });

  it('refuses anything inside .git, however it is reached', () => {
    const { repo } = setup();
    for (const bad of ['.git/config', '.GIT/config', 'src/../.git/HEAD', 'sub/.git/config']) {
      expect(() => confinePath(repo.root, bad), bad).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('.git') }));
    }
    symlinkSync('../.git', join(repo.root, 'src/meta'));
    expect(() => readConfinedFile(repo.root, 'src/meta/config', 100)).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('.git') }));
  });

  it('says NOT_FOUND for a missing file, and confines the nearest existing parent of a future file', () => {
    const { repo } = setup();
    expect(() => confinePath(repo.root, 'src/missing.ts')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    const future = confinePath(repo.root, 'src/new/deep/file.ts', { allowMissing: true });
    expect(future).toMatchObject({ relative: 'src/new/deep/file.ts', exists: false });
    symlinkSync(join(repo.root, 'nowhere'), join(repo.root, 'dangling'));
    expect(() => confinePath(repo.root, 'dangling')).toThrow(expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringContaining('broken symbolic link') }));
  });

  it('refuses a folder and caps what it reads', () => {
    const { repo } = setup();
    mkdirSync(join(repo.root, 'docs'));
    expect(() => readConfinedFile(repo.root, 'docs', 100)).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('not a regular file') }));
    const read = readConfinedFile(repo.root, 'src/a.ts', 6);
    expect(read.bytes.toString()).toBe('export');
    expect(read.size).toBe(20);
  });

  it('gives the whole text of a source file, or null for a FIFO, a link out or a file over the limit, without blocking', () => {
    const { repo, secret } = setup();
    expect(readConfinedText(repo.root, 'src/a.ts')).toBe('export const a = 1;\n');
    expect(readConfinedText(repo.root, 'src/a.ts', 10)).toBeNull();
    symlinkSync(secret, join(repo.root, 'src/out.txt'));
    expect(readConfinedText(repo.root, 'src/out.txt')).toBeNull();
    const fifo = join(repo.root, 'src/plan.fifo');
    execFileSync('mkfifo', [fifo]);
    // A writer waits on the FIFO: a plain read would take its text; this one refuses it unread.
    const writer = spawn('sh', ['-c', 'printf %s "$1" > "$2"', 'sh', 'piped text', fifo], { stdio: 'ignore' });
    try {
      expect(readConfinedText(repo.root, 'src/plan.fifo')).toBeNull();
    } finally {
      writer.kill('SIGKILL');
    }
  });
});
