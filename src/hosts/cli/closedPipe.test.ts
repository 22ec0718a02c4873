import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { packageRoot } from '../../core/platform/paths';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/**
 * Run `cra …args` with stdout on a real pipe whose reading end this process closes at once, before
 * the child has started (as `| head` does once it has its lines): every write of the child fails with EPIPE.
 */
function craIntoClosedPipe(args: string[]): Promise<{ status: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status, signal) => resolve({ status, signal, stderr }));
  });
}

it('cra logs | head: a closed stdout ends the command quietly (exit 0, no EPIPE stack trace)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-pipe-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const out = await craIntoClosedPipe(['--data-dir', dataDir, 'logs']);
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
}, 60_000);
