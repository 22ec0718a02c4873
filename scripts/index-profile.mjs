#!/usr/bin/env node
// Where the CPU of a full index goes, by phase (bench/indexProfile.ts): `node scripts/index-profile.mjs
// <repository>` profiles `cra index` from the sources, the parse workers included
// (CRA_PARSE_WORKERS=N sets the pool; 0 parses in one thread), and prints the time per phase.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const repo = process.argv[2];
if (!repo) {
  process.stderr.write('usage: node scripts/index-profile.mjs <repository folder>\n');
  process.exit(2);
}
const require = createRequire(import.meta.url);
require('tsx/cjs/api').register();
const { main } = require('../bench/indexProfile.ts');
try {
  process.exitCode = main(resolve(repo));
} catch (error) {
  process.stderr.write(`index-profile: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
