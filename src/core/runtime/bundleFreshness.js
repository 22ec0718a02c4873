'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, loaded by the worker entries before TypeScript can load */
// Whether a built bundle is current for the sources it was built from, and the worker entries'
// choice between that bundle and the TypeScript sources (plain CommonJS: it runs before any
// TypeScript can load). See indexer/parse/indexWorker.js.
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

/** Newest modification time (ms) of the files under `dir`; 0 when it cannot be read. */
function newestUnder(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestUnder(path));
    else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** True when `bundle` exists and no file under `sourceDir` was modified after it. */
function bundleIsCurrent(bundle, sourceDir) {
  try {
    return statSync(bundle).mtimeMs >= newestUnder(sourceDir);
  } catch {
    return false;
  }
}

/** The repository root (this file is src/core/runtime/bundleFreshness.js). */
const ROOT = join(__dirname, '..', '..', '..');

/**
 * Load a worker from `out/main/<bundleName>` when that build is current for everything under src/,
 * else register tsx and load `sourceFile` (an absolute path to the TypeScript entry).
 */
function loadBuiltOrSource(bundleName, sourceFile) {
  const bundle = join(ROOT, 'out', 'main', bundleName);
  if (bundleIsCurrent(bundle, join(ROOT, 'src'))) {
    require(bundle);
    return;
  }
  require('tsx/cjs/api').register();
  require(sourceFile);
}

/**
 * Which file bin/cra.js runs for the checkout at `root`: the CLI bundle `out/cli/main.js` when it is
 * current for everything under src/ (built by scripts/build-cli.mjs), else the TypeScript entry,
 * which needs tsx. CRA_FROM_SOURCE=1 forces the sources.
 */
function cliEntry(root = ROOT, env = process.env) {
  const bundle = join(root, 'out', 'cli', 'main.js');
  if (env.CRA_FROM_SOURCE !== '1' && bundleIsCurrent(bundle, join(root, 'src'))) return { file: bundle, fromSource: false };
  return { file: join(root, 'src', 'hosts', 'cli', 'main.ts'), fromSource: true };
}

module.exports = { newestUnder, bundleIsCurrent, loadBuiltOrSource, cliEntry };
