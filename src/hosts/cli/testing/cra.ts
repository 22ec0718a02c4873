import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../../core/platform/paths';

/** What a `cra` process printed and how it ended. */
export interface CraOutput {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Test support: run `cra --data-dir DIR …args` as a real process without blocking this one (tests
 * whose loopback model server answers in this process cannot use spawnSync). `env` is added to
 * this process's environment.
 */
export function runCra(dataDir: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CraOutput> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
