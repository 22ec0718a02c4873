'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS worker entry */
// Test support for parallel.test.ts: a parse worker that never starts a job (it takes the
// messages and answers nothing), as a worker stuck behind something else would.
const { parentPort } = require('node:worker_threads');
parentPort.on('message', () => undefined);
