'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS entry: it runs before tsx can load TypeScript */
// Embedding worker entry when running from the TypeScript sources (CLI through tsx, vitest). The
// Electron build has its own out/main/embedThread.js; when that bundle is newer than every file
// under src/, it is loaded instead of transforming the sources again (see indexer/parse/indexWorker.js).
const { join } = require('node:path');
const { loadBuiltOrSource } = require('../../platform/runtime/bundleFreshness.js');

loadBuiltOrSource('embedThread.js', join(__dirname, 'embedWorker.ts'));
