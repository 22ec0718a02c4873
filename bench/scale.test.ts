import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildCorpus } from './scale.bench';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('buildCorpus', () => {
  it('copies regular files source by source until the count, leaving out VCS folders, links and oversize files', () => {
    root = mkdtempSync(join(tmpdir(), 'cra-scale-'));
    const a = join(root, 'a');
    const b = join(root, 'b');
    mkdirSync(join(a, '.git'), { recursive: true });
    mkdirSync(join(a, 'lib'), { recursive: true });
    mkdirSync(b);
    writeFileSync(join(a, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(a, 'lib', 'one.py'), 'x = 1\n');
    writeFileSync(join(a, 'lib', 'two.py'), 'y = 2\n');
    writeFileSync(join(a, 'big.bin'), Buffer.alloc(1_000_001));
    symlinkSync(join(a, 'lib', 'one.py'), join(a, 'link.py'));
    writeFileSync(join(b, 'three.js'), 'let z = 3;\n');
    writeFileSync(join(b, 'four.js'), 'let w = 4;\n');

    const target = join(root, 'corpus');
    const counts = buildCorpus([a, b], target, 3);
    expect(counts).toEqual([{ source: a, files: 2 }, { source: b, files: 1 }]);
    const files = filesUnder(target);
    expect(files).toHaveLength(3);
    expect(files.filter((f) => f.endsWith('.py'))).toHaveLength(2);
    expect(files.some((f) => f.includes('.git') || f.endsWith('link.py') || f.endsWith('big.bin'))).toBe(false);
    // Sorted walk: four.js comes before three.js, and the count stops there.
    expect(files.some((f) => f.endsWith('four.js'))).toBe(true);
    expect(existsSync(join(target, '1-' + b.replace(/^\/+/, '').replace(/\//g, '_'), 'three.js'))).toBe(false);
  });
});
