'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS entry: it runs before tsx can load TypeScript */
// Embedding worker entry when running from the TypeScript sources (CLI through tsx, vitest). The
// Electron build has its own out/main/embedThread.js; when that bundle is newer than every file
// under src/, it is loaded instead of transforming the sources again (see indexer/indexWorker.js).
const { join } = require('node:path');
const { bundleIsCurrent } = require('../runtime/bundleFreshness.js');

const root = join(__dirname, '..', '..', '..');
const bundle = join(root, 'out', 'main', 'embedThread.js');

if (bundleIsCurrent(bundle, join(root, 'src'))) {
  require(bundle);
} else {
  require('tsx/cjs/api').register();
  require('./embedWorker.ts');
}
