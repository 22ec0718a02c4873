#!/usr/bin/env node
'use strict';
// The CLI runs its bundle (out/cli/main.js, built with the app by `npm install` / `npm run build`)
// while that is newer than every file under src/; after a source edit it runs the TypeScript
// sources through tsx, so `cra` always matches the code beside it. CRA_FROM_SOURCE=1 forces tsx.
const { cliEntry } = require('../src/core/platform/runtime/bundleFreshness.js');

const entry = cliEntry();
let program;
if (entry.fromSource) {
  // Node ≥ 22.1 keeps compiled code between runs (a no-op on older Node).
  require('node:module').enableCompileCache?.();
  require('tsx/cjs/api').register();
  program = require(entry.file);
} else {
  // The bundle is compiled with V8's code cache of an earlier run (src/core/platform/runtime/codeCache.js).
  program = require('../src/core/platform/runtime/codeCache.js').requireWithCodeCache(entry.file);
}
program
  .main(process.argv)
  .catch((error) => {
    process.stderr.write(`cra: ${error && error.message ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
