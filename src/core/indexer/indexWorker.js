'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS entry: it runs before tsx can load TypeScript */
// Worker entry when running from the TypeScript sources (CLI through tsx, vitest): register tsx,
// then load the worker module. The Electron build has its own out/main/indexWorker.js instead.
require('tsx/cjs/api').register();
require('./parseWorker.ts');
