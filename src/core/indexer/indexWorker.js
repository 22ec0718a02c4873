'use strict';
// Worker entry when running from the TypeScript sources (CLI through tsx, vitest): register tsx,
// then load the worker module. The Electron build has its own out/main/indexWorker.js instead.
require('tsx/cjs/api').register();
require('./parseWorker.ts');
