/**
 * A second process for the ownership tests: an app-like engine (host `test`: watchers and crash
 * recovery on) that indexes a repository and stops mid-run, its whole thread blocked inside the
 * first progress event, until a release file appears. It prints `HELD <pid>` when held and the
 * run's summary as one JSON line when done.
 *
 * Usage: node -r tsx/cjs heldIndex.ts <dataDir> <repo> <releaseFile>
 */
import { existsSync, writeSync } from 'node:fs';
import { createCore } from '../../../core/app/createCore';

const [dataDir, repo, release] = process.argv.slice(2);
if (!dataDir || !repo || !release) throw new Error('usage: heldIndex.ts <dataDir> <repo> <releaseFile>');

/** Block this thread (no timers, no I/O callbacks: the run cannot advance) until `file` exists. */
function holdUntil(file: string, limitMs = 60_000): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + limitMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`heldIndex: ${file} did not appear within ${limitMs} ms`);
    Atomics.wait(cell, 0, 0, 20);
  }
}

async function main(): Promise<void> {
  const core = createCore({ host: 'test', dataDir: dataDir! });
  let held = false;
  core.events.on('run/progress', (p) => {
    if (p.kind !== 'index' || held) return;
    held = true;
    writeSync(1, `HELD ${process.pid}\n`);
    holdUntil(release!);
  });
  try {
    const { runId } = await core.handlers['repos/add']({ path: repo!, watch: false, full: true });
    const summary = await core.runs.wait(runId);
    writeSync(1, `${JSON.stringify(summary)}\n`);
  } finally {
    await core.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
