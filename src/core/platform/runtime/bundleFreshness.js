'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, loaded by the worker entries before TypeScript can load */
// Whether a built bundle is current for the sources it was built from, and the worker entries'
// choice between that bundle and the TypeScript sources (plain CommonJS: it runs before any
// TypeScript can load). See indexer/parse/indexWorker.js.
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join, sep } = require('node:path');

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

/**
 * True when `bundle` exists and none of the source files listed in `listFile` (a JSON array of paths
 * relative to `root`, written by the build beside the bundle) is newer or gone. Checks only what the
 * bundle was built from: a test or a renderer edit does not send the CLI back to tsx, and ~300
 * stats instead of every file under src/ keep the check short. No list: every file under src/.
 */
function bundleIsCurrentFor(bundle, root, listFile) {
  let built;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return false;
  }
  let files;
  try {
    files = JSON.parse(readFileSync(listFile, 'utf8'));
  } catch {
    return built >= newestUnder(join(root, 'src'));
  }
  // The listed paths are plain relative ones with /, so a concatenation is the joined path (path.join's
  // normalisation of ~300 paths was a third of this check's time).
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  for (const file of files) {
    const stat = statSync(prefix + file, { throwIfNoEntry: false });
    if (!stat || stat.mtimeMs > built) return false;
  }
  return true;
}

/** The repository root (this file is src/core/platform/runtime/bundleFreshness.js). */
const ROOT = join(__dirname, '..', '..', '..', '..');

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
 * current for the sources it was built from (out/cli/sources.json, written by scripts/build-cli.mjs;
 * without it, everything under src/), else the TypeScript entry, which needs tsx.
 * CRA_FROM_SOURCE=1 forces the sources.
 */
function cliEntry(root = ROOT, env = process.env) {
  const bundle = join(root, 'out', 'cli', 'main.js');
  if (env.CRA_FROM_SOURCE !== '1' && bundleIsCurrentFor(bundle, root, join(root, 'out', 'cli', 'sources.json'))) return { file: bundle, fromSource: false };
  return { file: join(root, 'src', 'hosts', 'cli', 'main.ts'), fromSource: true };
}

module.exports = { newestUnder, bundleIsCurrent, bundleIsCurrentFor, loadBuiltOrSource, cliEntry };
