'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, loaded by the worker entries before TypeScript can load */
// Whether a built bundle is current for the sources it was built from (plain CommonJS: the worker
// entries run it before any TypeScript can load). See indexer/indexWorker.js.
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

module.exports = { newestUnder, bundleIsCurrent };
