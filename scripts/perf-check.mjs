#!/usr/bin/env node
// The performance check (bench/perfCheck.ts): start-up, search, chat and index figures as ratios to
// references measured in the same run (`node -e 0`, ctags), failing when one is clearly worse than
// its target (1.5× it). Run by CI after the tests (.ci/run); takes about a minute on 2 cores.
// It measures the CLI bundle, so it builds that first when it is missing or older than the sources.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const { cliEntry } = require('../src/core/platform/runtime/bundleFreshness.js');
if (cliEntry(root, {}).fromSource) {
  process.stdout.write('perf-check: building the CLI bundle (out/cli is missing or older than the sources)\n');
  const { buildCli } = await import('./build-cli.mjs');
  await buildCli(root);
}
require('tsx/cjs/api').register();
const { main } = require('../bench/perfCheck.ts');
const tmp = mkdtempSync(join(tmpdir(), 'cra-perf-check-'));
try {
  process.exitCode = await main(tmp);
} catch (error) {
  process.stderr.write(`perf-check: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
