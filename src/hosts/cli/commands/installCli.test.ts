import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { packageRoot, packageVersion } from '../../../core/platform/paths';
import { runCra } from '../testing/cra';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

it('cra install-cli puts cra on the PATH: a launcher that runs this checkout from any folder', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cra-install-cli-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const binDir = join(root, 'bin');
  const out = await runCra(join(root, 'data'), ['install-cli', '--bin-dir', binDir], { PATH: `/usr/bin:${process.env.PATH}` });
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
  expect(out.stdout).toBe(`Installed ${join(binDir, 'cra')}: \`cra\` now runs ${join(packageRoot(), 'bin', 'cra.js')} (with the node on your PATH).\n${binDir} is not on your PATH: add \`export PATH="${binDir}:$PATH"\` to your shell's profile (~/.profile, ~/.bashrc or ~/.zshrc) and open a new terminal.\n`);
  const elsewhere = spawnSync('cra', ['--version'], { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PATH: `${binDir}:${process.env.PATH}` } });
  expect(elsewhere.stdout.trim()).toBe(packageVersion());
}, 60_000);
