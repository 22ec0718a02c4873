import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/platform/paths';
import { RepoRegistry } from '../../../core/knowledge/repos/registry';
import type { CraOutput } from '../testing/cra';
import { useCliModelRepo } from '../testing/modelRepo';

const fx = useCliModelRepo({ prefix: 'cra-cli-logs-' });
let elsewhere: string;

/** `cra --data-dir … logs …args` run in `cwd` (the repository you stand in, or a folder outside any). */
function logs(cwd: string, args: string[] = []): Promise<CraOutput> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', fx.dataDir, 'logs', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

beforeAll(async () => {
  elsewhere = mkdtempSync(join(tmpdir(), 'cra-cli-logs-cwd-'));
  // Every judgment says yes, with its token probabilities (the loopback server sends them when asked).
  fx.server.script.respond = (prompt) => (prompt.includes('symbol:') || prompt.includes('file:') ? { text: 'yes' } : undefined);
  const retrieve = await fx.cra(['retrieve', 'Fix load_config in config.py', '--repo', fx.repo.root, '--stages', 'scope,precision', '--context-window', '32768', '--reserved-tokens', '4096']);
  expect(retrieve.status, retrieve.stderr).toBe(0);
}, 180_000);
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

const callLines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('#'));

describe('cra logs', () => {
  it('after cra retrieve, in the repository (no flag), shows its calls with P(yes) for judgments', async () => {
    const here = await logs(fx.repo.root);
    expect(here.stderr).toBe('');
    expect(here.status).toBe(0);
    expect(here.stdout).not.toContain('No model calls');
    const lines = callLines(here.stdout);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((l) => / {2}P\(yes\) \d\.\d\d {2}/.test(l))).toBe(true);
    expect(here.stdout).toMatch(new RegExp(`\\n${lines.length} of \\d+ calls \\(the log of ${fx.repo.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)\\n$`));

    // From a subfolder, by --repo path (absolute or relative) and by id: the same log.
    const sub = join(fx.repo.root, 'sub', 'dir');
    mkdirSync(sub, { recursive: true });
    const registry = new RepoRegistry(fx.dataDir);
    const id = registry.list()[0]!.id;
    registry.close();
    for (const out of [await logs(sub), await logs(elsewhere, ['--repo', fx.repo.root]), await logs(fx.repo.root, ['--repo', '.']), await logs(elsewhere, ['--repo', id])]) {
      expect(out.stderr).toBe('');
      expect(callLines(out.stdout)).toEqual(lines);
    }
  }, 120_000);

  it('outside any repository lists every log, each line naming its log; a --repo that is neither a folder nor an id says so', async () => {
    const all = await logs(elsewhere);
    expect(all.status, all.stderr).toBe(0);
    const lines = callLines(all.stdout);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => /^#\d+ {2}(app|repo) {2}/.test(l))).toBe(true);
    expect(all.stdout).toMatch(/\n\d+ of \d+ calls \(\d+ logs\)\n$/);

    const missing = await logs(elsewhere, ['--repo', 'no-such-repo']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(`cra: error: No folder ${join(elsewhere, 'no-such-repo')} and no repository with id no-such-repo; give a repository's folder (or its id).\n`);
  }, 120_000);
});
