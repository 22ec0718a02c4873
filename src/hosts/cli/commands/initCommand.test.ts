import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/platform/paths';

const root = mkdtempSync(join(tmpdir(), 'cra-cli-init-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function cra(...args: string[]) {
  return spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', join(root, 'data'), 'init', ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
}

describe('cra init (config/init through the contract client)', () => {
  it('writes the user config once, then leaves it; --config writes another file (relative to the working folder), --force overwrites it', () => {
    const user = join(root, 'data', 'config.toml');
    const first = cra();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe(`Wrote ${user}\nNext: \`cra models pull qwen3:4b\` (or pick models on the Models page).\n`);
    expect(readFileSync(user, 'utf8')).toContain('[budget]');
    expect(cra().stdout).toBe(`${user} already exists; left unchanged (use --force to overwrite).\n`);

    const other = join(root, 'repo.toml');
    writeFileSync(other, 'kept = true\n');
    expect(cra('--config', 'repo.toml').stdout).toBe(`${other} already exists; left unchanged (use --force to overwrite).\n`);
    expect(readFileSync(other, 'utf8')).toBe('kept = true\n');
    expect(cra('--config', 'repo.toml', '--force').stdout).toMatch(new RegExp(`^Wrote ${other}\n`));
    expect(readFileSync(other, 'utf8')).toContain('[budget]');
  }, 120_000);

  it('never replaces a folder, even with --force, and says what to do', () => {
    mkdirSync(join(root, 'folder.toml'));
    const run = cra('--config', 'folder.toml', '--force');
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`cra: error: ${join(root, 'folder.toml')} is a folder, not a config file. Move or remove that folder, or write the config elsewhere with --config FILE.\n`);
  }, 120_000);
});
