'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS entry: it runs before tsx can load TypeScript */
// Worker entry when running from the TypeScript sources (CLI through tsx, vitest). The Electron
// build has its own out/main/indexWorker.js. When that bundle is newer than every file under src/
// (`npm install` and `npm run build` make it), it is the same code already compiled and is loaded
// instead of registering tsx: no TypeScript transform in every worker's start-up.
// A source edited since the build falls back to the sources.
const { join } = require('node:path');
const { loadBuiltOrSource } = require('../../../platform/runtime/bundleFreshness.js');

loadBuiltOrSource('indexWorker.js', join(__dirname, 'parseWorker.ts'));
