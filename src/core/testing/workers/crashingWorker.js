'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS entry: it runs before tsx can load TypeScript */
// Test support for parallel.test.ts: the real parse worker, except that a job for a path containing
// "crash" kills the worker thread before it answers (a worker failure the pool must survive).
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (message) => {
  if (message.job.relPath.includes('crash')) process.exit(3);
});
require('tsx/cjs/api').register();
require('../../knowledge/indexer/parse/parseWorker.ts');
