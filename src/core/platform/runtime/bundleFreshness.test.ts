import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleIsCurrent, bundleIsCurrentFor, cliEntry, newestUnder } from './bundleFreshness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A source tree (one nested file) and a bundle, with the given modification times in seconds. */
function layout(sourceSeconds: number, bundleSeconds: number | null): { bundle: string; src: string } {
  const root = mkdtempSync(join(tmpdir(), 'cra-fresh-'));
  dirs.push(root);
  const src = join(root, 'src');
  mkdirSync(join(src, 'core', 'knowledge', 'indexer'), { recursive: true });
  writeFileSync(join(src, 'core', 'knowledge', 'indexer', 'a.ts'), 'export {};');
  writeFileSync(join(src, 'b.ts'), 'export {};');
  utimesSync(join(src, 'b.ts'), 1000, 1000);
  utimesSync(join(src, 'core', 'knowledge', 'indexer', 'a.ts'), sourceSeconds, sourceSeconds);
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

describe('cliEntry (what bin/cra.js runs)', () => {
  /** A checkout with src/ and out/cli/main.js at the given modification times (seconds). */
  function checkout(sourceSeconds: number, bundleSeconds: number | null): string {
    const root = mkdtempSync(join(tmpdir(), 'cra-cli-entry-'));
    dirs.push(root);
    mkdirSync(join(root, 'src', 'hosts', 'cli'), { recursive: true });
    writeFileSync(join(root, 'src', 'hosts', 'cli', 'main.ts'), 'export {};');
    utimesSync(join(root, 'src', 'hosts', 'cli', 'main.ts'), sourceSeconds, sourceSeconds);
    if (bundleSeconds !== null) {
      mkdirSync(join(root, 'out', 'cli'), { recursive: true });
      writeFileSync(join(root, 'out', 'cli', 'main.js'), '');
      utimesSync(join(root, 'out', 'cli', 'main.js'), bundleSeconds, bundleSeconds);
    }
    return root;
  }

  it('runs the bundle while it is newer than every source', () => {
    const root = checkout(2000, 3000);
    expect(cliEntry(root, {})).toEqual({ file: join(root, 'out', 'cli', 'main.js'), fromSource: false });
  });

  it('falls back to the sources through tsx when a source was touched after the build, the bundle is missing, or CRA_FROM_SOURCE=1', () => {
    const source = (root: string) => ({ file: join(root, 'src', 'hosts', 'cli', 'main.ts'), fromSource: true });
    const touched = checkout(2000, 3000);
    utimesSync(join(touched, 'src', 'hosts', 'cli', 'main.ts'), 4000, 4000);
    expect(cliEntry(touched, {})).toEqual(source(touched));
    const missing = checkout(2000, null);
    expect(cliEntry(missing, {})).toEqual(source(missing));
    const forced = checkout(2000, 3000);
    expect(cliEntry(forced, { CRA_FROM_SOURCE: '1' })).toEqual(source(forced));
  });
});

describe('bundleIsCurrentFor (the sources a bundle was built from, out/cli/sources.json)', () => {
  /** A checkout with two sources, a test file and a bundle built at 3000 s listing the two sources. */
  function built(): { root: string; bundle: string; list: string } {
    const root = mkdtempSync(join(tmpdir(), 'cra-fresh-list-'));
    dirs.push(root);
    mkdirSync(join(root, 'src', 'core'), { recursive: true });
    for (const name of ['a.ts', 'b.ts', 'a.test.ts']) {
      writeFileSync(join(root, 'src', 'core', name), 'export {};');
      utimesSync(join(root, 'src', 'core', name), 2000, 2000);
    }
    mkdirSync(join(root, 'out', 'cli'), { recursive: true });
    const bundle = join(root, 'out', 'cli', 'main.js');
    writeFileSync(bundle, '');
    utimesSync(bundle, 3000, 3000);
    const list = join(root, 'out', 'cli', 'sources.json');
    writeFileSync(list, JSON.stringify(['src/core/a.ts', 'src/core/b.ts']));
    return { root, bundle, list };
  }

  it('stays current when a file the bundle was not built from changes (a test), not when a listed source changes', () => {
    const { root, bundle, list } = built();
    expect(bundleIsCurrentFor(bundle, root, list)).toBe(true);
    utimesSync(join(root, 'src', 'core', 'a.test.ts'), 4000, 4000);
    expect(bundleIsCurrentFor(bundle, root, list)).toBe(true);
    utimesSync(join(root, 'src', 'core', 'b.ts'), 4000, 4000);
    expect(bundleIsCurrentFor(bundle, root, list)).toBe(false);
  });

  it('is stale when a listed source is gone, and checks all of src/ when there is no list', () => {
    const gone = built();
    rmSync(join(gone.root, 'src', 'core', 'a.ts'));
    expect(bundleIsCurrentFor(gone.bundle, gone.root, gone.list)).toBe(false);
    const unlisted = built();
    rmSync(unlisted.list);
    expect(bundleIsCurrentFor(unlisted.bundle, unlisted.root, unlisted.list)).toBe(true);
    utimesSync(join(unlisted.root, 'src', 'core', 'a.test.ts'), 4000, 4000);
    expect(bundleIsCurrentFor(unlisted.bundle, unlisted.root, unlisted.list)).toBe(false);
  });
});
