import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleIsCurrent, newestUnder } from './bundleFreshness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A source tree (one nested file) and a bundle, with the given modification times in seconds. */
function layout(sourceSeconds: number, bundleSeconds: number | null): { bundle: string; src: string } {
  const root = mkdtempSync(join(tmpdir(), 'cra-fresh-'));
  dirs.push(root);
  const src = join(root, 'src');
  mkdirSync(join(src, 'core', 'indexer'), { recursive: true });
  writeFileSync(join(src, 'core', 'indexer', 'a.ts'), 'export {};');
  writeFileSync(join(src, 'b.ts'), 'export {};');
  utimesSync(join(src, 'b.ts'), 1000, 1000);
  utimesSync(join(src, 'core', 'indexer', 'a.ts'), sourceSeconds, sourceSeconds);
  const bundle = join(root, 'indexWorker.js');
  if (bundleSeconds !== null) {
    writeFileSync(bundle, '');
    utimesSync(bundle, bundleSeconds, bundleSeconds);
  }
  return { bundle, src };
}

describe('bundleIsCurrent', () => {
  it('uses a bundle built after the newest source, nested folders included', () => {
    const { bundle, src } = layout(2000, 3000);
    expect(newestUnder(src)).toBe(2000 * 1000);
    expect(bundleIsCurrent(bundle, src)).toBe(true);
  });

  it('falls back to the sources when one was edited after the build, or there is no bundle', () => {
    const edited = layout(4000, 3000);
    expect(bundleIsCurrent(edited.bundle, edited.src)).toBe(false);
    const missing = layout(2000, null);
    expect(bundleIsCurrent(missing.bundle, missing.src)).toBe(false);
  });
});
