import { isAscii } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../../scripts/build-cli.mjs';
import { writeSample } from '../../core/testing/sampleRepo';
import { packageRoot } from '../../core/platform/paths';
import { createTestRepo, type TestRepo } from '../../core/testing/gitRepo';

/**
 * The CLI bundle as bin/cra.js runs it (scripts/build-cli.mjs): main.js for the start, engine.js for
 * the actions. Built into a folder of its own under out/ (packageRoot() must find our package.json
 * above it), then run with the code-cache loader like bin/cra.js.
 */
const outdir = join(packageRoot(), 'out', `cli-test-${process.pid}`);
let repo: TestRepo;
let dataDir: string;

beforeAll(async () => {
  await buildCli(packageRoot(), outdir);
  repo = createTestRepo();
  writeSample(repo);
  dataDir = mkdtempSync(join(tmpdir(), 'cra-bundle-'));
}, 120_000);
afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
  repo?.cleanup();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function bundled(...args: string[]) {
  const loader = join(outdir, 'codeCache.js');
  const script = `require(${JSON.stringify(loader)}).requireWithCodeCache(${JSON.stringify(join(outdir, 'main.js'))}).main(['node', 'cra', ...process.argv.slice(1)]);`;
  return spawnSync(process.execPath, ['-e', script, '--', ...args], { encoding: 'utf8', timeout: 120_000 });
}

describe('the split CLI bundle', () => {
  it('keeps the start bundle small: the engine and zod are in engine.js', () => {
    expect(statSync(join(outdir, 'main.js')).size).toBeLessThan(400_000);
    const main = readFileSync(join(outdir, 'main.js'), 'utf8');
    expect(main).not.toContain('node_modules/zod/');
    expect(readFileSync(join(outdir, 'engine.js'), 'utf8')).toContain('node_modules/zod/');
    // ASCII, so codeCache.js reads them as latin1 (a copy) rather than decoding 3 MB of UTF-8 on every start.
    for (const name of ['main.js', 'engine.js']) expect(isAscii(readFileSync(join(outdir, name))), name).toBe(true);
    const sources = JSON.parse(readFileSync(join(outdir, 'sources.json'), 'utf8')) as string[];
    expect(sources).toEqual(expect.arrayContaining(['src/hosts/cli/main.ts', 'src/core/app/createCore.ts', 'src/core/knowledge/indexer/parse/parseWorker.ts']));
    expect(sources.some((file) => file.endsWith('.test.ts'))).toBe(false);
  });

  it('prints the version, indexes and searches through the engine bundle', () => {
    const version = bundled('--version');
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version);
    const index = bundled('--data-dir', dataDir, 'index', repo.root, '--json');
    expect(index.status, index.stderr).toBe(0);
    const search = bundled('--data-dir', dataDir, 'search', 'Engine start', '--repo', repo.root, '--json');
    expect(search.status, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as { results: Array<{ path: string }> }).results[0]?.path).toBe('pkg/core.py');
    // Each command keeps the code cache of what it compiled (codeCache.js): search never deserialises the indexer's.
    expect(readdirSync(outdir).filter((name) => name.startsWith('engine.js.') && name.endsWith('.v8cache')).sort()).toEqual(['engine.js.index.v8cache', 'engine.js.search.v8cache']);
  }, 120_000);

  it("carries better-sqlite3's JavaScript in engine.js: a search loads only the package's binary from node_modules", () => {
    const loader = join(outdir, 'codeCache.js');
    const script = [
      "process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(Object.keys(require.cache).filter((f) => f.includes('node_modules/better-sqlite3/')).map((f) => f.slice(f.indexOf('node_modules/better-sqlite3/')))) + '\\n'));",
      `require(${JSON.stringify(loader)}).requireWithCodeCache(${JSON.stringify(join(outdir, 'main.js'))}).main(['node', 'cra', ...process.argv.slice(1)]);`,
    ].join('\n');
    bundled('--data-dir', dataDir, 'index', repo.root, '--json');
    const search = spawnSync(process.execPath, ['-e', script, '--', '--data-dir', dataDir, 'search', 'Engine start', '--repo', repo.root, '--json'], { encoding: 'utf8', timeout: 120_000 });
    expect(search.status, search.stderr).toBe(0);
    const line = search.stderr.split('\n').find((l) => l.startsWith('LOADED ')) ?? 'LOADED null';
    expect(JSON.parse(line.slice('LOADED '.length))).toEqual(['node_modules/better-sqlite3/build/Release/better_sqlite3.node']);
  }, 120_000);

  it("loads none of Node's thread, file-handle, readline or crypto modules for `cra --version` and a search (issue #25: they load on first use)", () => {
    const loader = join(outdir, 'codeCache.js');
    const script = [
      "process.on('exit', () => process.stderr.write('BUILTINS ' + JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length))) + '\\n'));",
      `require(${JSON.stringify(loader)}).requireWithCodeCache(${JSON.stringify(join(outdir, 'main.js'))}).main(['node', 'cra', ...process.argv.slice(1)]);`,
    ].join('\n');
    bundled('--data-dir', dataDir, 'index', repo.root, '--json');
    for (const args of [['--version'], ['--data-dir', dataDir, 'search', 'Engine start', '--repo', repo.root, '--json']]) {
      const run = spawnSync(process.execPath, ['-e', script, '--', ...args], { encoding: 'utf8', timeout: 120_000 });
      expect(run.status, run.stderr).toBe(0);
      const builtins = JSON.parse((run.stderr.split('\n').find((l) => l.startsWith('BUILTINS ')) ?? 'BUILTINS null').slice('BUILTINS '.length)) as string[];
      expect(builtins, args.join(' ')).toContain('vm');
      expect(builtins.filter((m) => ['worker_threads', 'fs/promises', 'readline/promises', 'crypto'].includes(m)), args.join(' ')).toEqual([]);
    }
  }, 120_000);

  it("imports ESM packages from the engine when it runs from its code cache (V8 drops the bundle's own import() hook then)", () => {
    // models/recommended does `await import('node:os')`; the first run writes the cache, the second runs from it.
    const script = [
      `const loader = require(${JSON.stringify(join(outdir, 'codeCache.js'))});`,
      `loader.requireWithCodeCache(${JSON.stringify(join(outdir, 'main.js'))});`,
      `const { createCore } = loader.requireWithCodeCache(${JSON.stringify(join(outdir, 'engine.js'))}).load('src/core/app/createCore.ts');`,
      `const core = createCore({ host: 'cli', dataDir: ${JSON.stringify(dataDir)} }, { watch: false, recoverStatuses: false });`,
      "core.handlers['models/recommended']({}).then((r) => { process.stdout.write(String(r.totalMemoryBytes > 0)); return core.dispose(); });",
    ].join('\n');
    for (const run of ['writes the cache', 'runs from it']) {
      const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 120_000 });
      expect(`${run}: ${result.stdout}`, result.stderr).toBe(`${run}: true`);
    }
    expect(readFileSync(join(outdir, 'engine.js'), 'utf8')).not.toMatch(/\bimport\("/);
  }, 120_000);

  it('keeps one AppError: an error the engine throws is reported as a user error, not an internal one', () => {
    const missing = bundled('--data-dir', dataDir, 'search', 'x', '--repo', join(dataDir, 'no-such-folder'));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^cra: error: .*does not exist/);
  });
});
