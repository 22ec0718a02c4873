import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot, packageVersion } from '../../../core/platform/paths';
import { installCliLauncher } from './cliLauncher';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "cra-launcher-it's-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
const craJs = join(packageRoot(), 'bin', 'cra.js');

describe('installCliLauncher (cra install-cli, the app menu item)', () => {
  it('writes an executable launcher that runs this checkout from any folder, says when its folder is not on the PATH, and rewrites its own launcher', () => {
    const binDir = join(tempDir(), 'bin');
    const first = installCliLauncher({ craJs, binDir, env: { PATH: '/usr/bin' } });
    expect(first).toMatchObject({ path: join(binDir, 'cra'), replaced: false, onPath: false });
    expect(first.hint).toContain(`export PATH="${binDir}:$PATH"`);
    expect(statSync(first.path).mode & 0o111).toBe(0o111);
    // A real shell runs it from another folder, with a PATH that has the folder (and node).
    const ran = spawnSync('cra', ['--version'], { cwd: tempDir(), encoding: 'utf8', timeout: 60_000, env: { ...process.env, PATH: `${binDir}:${process.env.PATH}` } });
    expect(ran.stderr).toBe('');
    expect(ran.stdout.trim()).toBe(packageVersion());
    const again = installCliLauncher({ craJs, binDir, env: { PATH: `/usr/bin:${binDir}` } });
    expect(again).toEqual({ path: first.path, replaced: true, onPath: true });
  }, 60_000);

  it('leaves a cra that is not its own untouched, saying what to do; refuses a missing bin/cra.js and Windows', () => {
    const binDir = tempDir();
    const theirs = join(binDir, 'cra');
    writeFileSync(theirs, '#!/bin/sh\necho another tool\n');
    expect(() => installCliLauncher({ craJs, binDir })).toThrow(expect.objectContaining({ code: 'CONFLICT', message: `${theirs} exists and is not a Clean Room launcher; it is left as it is. Remove it yourself, or install into another folder (--bin-dir DIR).` }));
    expect(readFileSync(theirs, 'utf8')).toBe('#!/bin/sh\necho another tool\n');
    expect(() => installCliLauncher({ craJs: join(binDir, 'nope.js'), binDir: join(binDir, 'b') })).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => installCliLauncher({ craJs, binDir: join(binDir, 'w'), platform: 'win32' })).toThrow(/npm link/);
  });
});
