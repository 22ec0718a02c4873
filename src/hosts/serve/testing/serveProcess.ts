/**
 * Test support: the real `cra serve` as a process of its own (on a free port, with a placeholder
 * renderer), for what only a separate process shows — a crash, a frozen event loop, a client in
 * another process. Product code never imports this.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../../core/platform/paths';

/** A running `cra serve`: its process, its URL (with the token), its scratch folder and what it printed. */
export interface ServeProcess {
  child: ChildProcess;
  url: URL;
  /** A scratch folder (the data folder is `data` in it); removed by `stop`. */
  root: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** End the process (if it still runs) and remove the scratch folder. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Start `cra serve --port 0` on a fresh data folder and wait for its "serving on" line. */
export async function startServeProcess(prefix: string): Promise<ServeProcess> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>Clean Room</title>');
  const args = [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', join(root, 'data'), 'serve', '--port', '0', '--renderer', root];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<URL>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving on (http:\S+)/.exec(output);
      if (match?.[1]) resolve(new URL(match[1]));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`cra serve exited with ${code}:\n${output}`)));
  });
  return {
    child,
    url,
    root,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill(signal);
        await exited;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
