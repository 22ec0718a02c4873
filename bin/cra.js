#!/usr/bin/env node
'use strict';
// The CLI runs the TypeScript sources through tsx, so `cra` always matches the code beside it.
const { join } = require('node:path');
const { register } = require('tsx/cjs/api');
register();
require(join(__dirname, '..', 'src', 'hosts', 'cli', 'main.ts'))
  .main(process.argv)
  .catch((error) => {
    process.stderr.write(`cra: ${error && error.message ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
