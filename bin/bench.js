#!/usr/bin/env node
'use strict';
// `npm run bench`: every bench/*.bench.ts into one JSON file, bench/results/<date>-<commit>.json; `-- --compare A.json B.json` prints ratios.
// The suites are TypeScript and run through tsx, like the CLI.
const { join } = require('node:path');
const { register } = require('tsx/cjs/api');
register();
require(join(__dirname, '..', 'bench', 'runner.ts'))
  .main(process.argv.slice(2))
  .catch((error) => {
    process.stderr.write(`bench: ${error && error.message ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
