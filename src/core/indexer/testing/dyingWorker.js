'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS worker entry */
// Test support for parallel.test.ts: a parse worker that dies on every job it is given (exit code
// 3 before answering), so the pool loses each worker it starts and then gives up.
const { parentPort } = require('node:worker_threads');
parentPort.on('message', () => process.exit(3));
