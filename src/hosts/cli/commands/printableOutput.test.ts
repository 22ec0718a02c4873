import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/platform/paths';
import { createTestRepo } from '../../../core/testing/gitRepo';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function cra(dataDir: string, ...args: string[]) {
  return spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 120_000 });
}

const EVIL = 'evil\x1b[31mred\nname.py';
const EVIL_BINARY = 'blob\x1b]0;pwned\x07.bin';

describe('human output of file names with control characters', () => {
  it('is escaped by cra index -v and cra search, while --json keeps the exact names', () => {
    const repo = createTestRepo();
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-cli-esc-'));
    cleanups.push(() => repo.cleanup(), () => rmSync(dataDir, { recursive: true, force: true }));
    repo.write(EVIL, 'def zebra_crossing():\n    return 1\n');
    repo.write(EVIL_BINARY, Buffer.from([0, 1, 2, 3]));
    repo.write('plain.py', 'def other():\n    return zebra_crossing()\n');
    repo.commit('names with control characters');

    const index = cra(dataDir, 'index', repo.root, '-v');
    expect(index.status, index.stderr).toBe(0);
    expect(index.stdout).toContain('  skipped blob\\x1b]0;pwned\\x07.bin (binary)');
    expect(index.stdout + index.stderr).not.toMatch(/[\x1b\x07]/); // -v also prints each parsed file's name on stderr

    const search = cra(dataDir, 'search', 'zebra_crossing', '--repo', repo.root);
    expect(search.status, search.stderr).toBe(0);
    expect(search.stdout).not.toContain('\x1b');
    expect(search.stdout).toContain('evil\\x1b[31mred\\nname.py');
    // One result is two lines (head, detail): the newline in the name does not add a third.
    const head = search.stdout.split('\n').find((line) => line.includes('evil'))!;
    expect(head).toMatch(/^\s+\d+ {2}evil\\x1b\[31mred\\nname\.py:\d+\s+\d\.\d{3}$/);

    const json = cra(dataDir, 'search', 'zebra_crossing', '--repo', repo.root, '--json');
    expect((JSON.parse(json.stdout) as { results: Array<{ path: string }> }).results.map((r) => r.path)).toContain(EVIL);
  });
});
