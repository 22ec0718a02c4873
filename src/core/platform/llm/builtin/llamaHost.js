'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS entry: it runs before tsx can load TypeScript */
// Entry of the built-in model runtime's host process when running from the TypeScript sources (CLI
// through tsx, vitest). The Electron build has its own out/main/llamaHost.js; when that bundle is
// newer than every file under src/, it is loaded instead (see indexer/parse/indexWorker.js).
const { join } = require('node:path');
const { loadBuiltOrSource } = require('../../runtime/bundleFreshness.js');

loadBuiltOrSource('llamaHost.js', join(__dirname, 'llamaHost.ts'));
