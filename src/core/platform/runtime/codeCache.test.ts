import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const LOADER = join(__dirname, 'codeCache.js');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Load `file` with the code cache in a fresh Node process (as bin/cra.js does) and return what it
 * printed; `command` is the command the CLI names before it loads the engine (context.ts).
 */
function load(file: string, cacheFile?: string, command?: string): string {
  const named = command === undefined ? '' : `globalThis[Symbol.for('clean-room.cli.command')] = ${JSON.stringify(command)};`;
  const script = `${named}const m = require(${JSON.stringify(LOADER)}).requireWithCodeCache(${JSON.stringify(file)}${cacheFile ? `, ${JSON.stringify(cacheFile)}` : ''}); process.stdout.write(String(m.answer()));`;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`exit ${result.status}: ${result.stderr}`);
  return result.stdout;
}

/** A CommonJS module whose answer() returns `value` (two digits, so edits keep the file's length). */
function writeModule(file: string, value: number, seconds: number): void {
  writeFileSync(file, `'use strict';\nconst path = require('node:path');\nexports.answer = () => ${String(value).padStart(2, '0')} + path.sep.length - 1;\nexports.dir = __dirname;\n`);
  utimesSync(file, seconds, seconds);
}

describe('requireWithCodeCache (the CLI bundles with V8 code cache)', () => {
  it('runs the module, stores the cache at exit, and runs it again from the cache', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-code-cache-'));
    dirs.push(dir);
    const file = join(dir, 'bundle.js');
    writeModule(file, 41, 2000);
    expect(load(file)).toBe('41');
    const cache = readFileSync(`${file}.v8cache`);
    expect(cache.subarray(0, cache.indexOf(10)).toString('latin1')).toMatch(/^cra-code-cache 1 \S+ \S+ \d+ 2000000$/);
    expect(load(file)).toBe('41');
  });

  it('keeps one cache per command the CLI names, so a command never runs from the cache another wrote', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-code-cache-'));
    dirs.push(dir);
    const file = join(dir, 'engine.js');
    writeModule(file, 23, 2000);
    expect(load(file, undefined, 'search')).toBe('23');
    expect(existsSync(`${file}.search.v8cache`)).toBe(true);
    expect(existsSync(`${file}.chat.v8cache`)).toBe(false);
    expect(load(file, undefined, 'chat')).toBe('23');
    expect(existsSync(`${file}.chat.v8cache`)).toBe(true);
    expect(load(file, undefined, 'search')).toBe('23');
    // Not a plain command word: the shared cache file, never a path made of it.
    expect(load(file, undefined, '../x')).toBe('23');
    expect(existsSync(`${file}.v8cache`)).toBe(true);
    expect(existsSync(join(dir, 'x.v8cache'))).toBe(false);
  });

  it('reads a non-ASCII file as UTF-8 and an ASCII one (the CLI bundles) alike, from source and from the cache', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-code-cache-'));
    dirs.push(dir);
    const file = join(dir, 'text.js');
    writeFileSync(file, "'use strict';\nexports.answer = () => JSON.stringify(['a – b ≥ c', /[-–]/.test('–'), '\\u2013']);\n");
    const expected = JSON.stringify(['a – b ≥ c', true, '–']);
    expect(load(file)).toBe(expected);
    expect(load(file)).toBe(expected);
  });

  it('never runs a stale cache: a bundle rebuilt with the same length runs its new code', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-code-cache-'));
    dirs.push(dir);
    const file = join(dir, 'bundle.js');
    writeModule(file, 41, 2000);
    expect(load(file)).toBe('41');
    writeModule(file, 57, 3000);
    expect(load(file)).toBe('57');
    expect(readFileSync(`${file}.v8cache`).toString('latin1')).toContain(' 3000000\n');
  });

  it('runs without a cache where the cache cannot be written (read-only install)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-code-cache-'));
    dirs.push(dir);
    const readOnly = join(dir, 'ro');
    mkdirSync(readOnly);
    const file = join(readOnly, 'bundle.js');
    writeModule(file, 12, 2000);
    chmodSync(readOnly, 0o555);
    try {
      const cacheFile = join(readOnly, 'bundle.js.v8cache');
      expect(load(file, cacheFile)).toBe('12');
      expect(load(file, cacheFile)).toBe('12');
      if (process.getuid?.() !== 0) expect(existsSync(cacheFile)).toBe(false);
    } finally {
      chmodSync(readOnly, 0o755);
    }
  });
});
