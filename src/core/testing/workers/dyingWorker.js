'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS worker entry */
// Test support for parallel.test.ts: a parse worker that dies on every job it starts. Like the real
// worker it first claims the job in the run's claim table (claims.ts) and skips a job the engine
// thread took back; a job it claimed kills it (exit code 3) before it answers, so the pool loses
// each worker it starts and then gives up.
const { parentPort, workerData } = require('node:worker_threads');
const claims = workerData.claims;
parentPort.on('message', (message) => {
  if (claims && message.claim !== undefined && Atomics.compareExchange(claims, message.claim, 0, 1) !== 0) {
    parentPort.postMessage({ id: message.id, skipped: true });
    return;
  }
  process.exit(3);
});
