#!/usr/bin/env node
// `npm test`: build the app, run the unit tests (vitest) and the browser tests (Playwright against
// `cra serve` in Debian's Chromium), then print one plain summary line: "N passed, N failed, N skipped".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const env = { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', ELECTRON_SKIP_BINARY_DOWNLOAD: '1' };
const only = process.argv[2]; // optional: "unit" or "e2e"

function run(label, command, args) {
  process.stdout.write(`\n=== ${label}: ${[command, ...args].map((a) => a.replace(root + '/', '')).join(' ')}\n`);
  const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
  return result.status ?? 1;
}

const counts = { passed: 0, failed: 0, skipped: 0 };
let hardFailures = 0;

if (only !== 'e2e') {
  rmSync(join(root, '.vitest-results.json'), { force: true });
  const status = run('unit tests', bin('vitest'), ['run', '--reporter=default', '--reporter=json', '--outputFile.json=.vitest-results.json']);
  const file = join(root, '.vitest-results.json');
  if (existsSync(file)) {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    counts.passed += report.numPassedTests ?? 0;
    counts.failed += report.numFailedTests ?? 0;
    counts.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    // A suite that failed to load has no failed tests but a failed file.
    if (status !== 0 && (report.numFailedTests ?? 0) === 0) hardFailures++;
  } else if (status !== 0) hardFailures++;
}

if (only !== 'unit') {
  const built = run('build', bin('electron-vite'), ['build']);
  if (built !== 0) hardFailures++;
  else {
    rmSync(join(root, '.playwright-results.json'), { force: true });
    const status = run('browser tests', bin('playwright'), ['test']);
    const file = join(root, '.playwright-results.json');
    if (existsSync(file)) {
      const stats = JSON.parse(readFileSync(file, 'utf8')).stats ?? {};
      counts.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
      counts.failed += stats.unexpected ?? 0;
      counts.skipped += stats.skipped ?? 0;
      if (status !== 0 && (stats.unexpected ?? 0) === 0) hardFailures++;
    } else if (status !== 0) hardFailures++;
  }
}

const failed = counts.failed + hardFailures;
process.stdout.write(`\n${counts.passed} passed, ${failed} failed, ${counts.skipped} skipped\n`);
process.exit(failed > 0 || counts.passed === 0 ? 1 : 0);
