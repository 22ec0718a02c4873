/*
 * Node's built-in modules that most commands never use, loaded on first use (issue #25): `cra
 * search` hashes nothing, names nothing new and starts no thread, so `node:crypto` (with its ~15
 * internal modules, ~2.5 ms) and `node:worker_threads` (~1.2 ms) stay unloaded there.
 * src/hosts/cli/bundle.test.ts lists what `--version` and a search load.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded when first called, not at start */
import type * as Crypto from 'node:crypto';
import type * as WorkerThreads from 'node:worker_threads';

let crypto: typeof Crypto | undefined;
/** `node:crypto`, loaded by the first call. */
export function nodeCrypto(): typeof Crypto {
  return (crypto ??= require('node:crypto') as typeof Crypto);
}

/** `node:worker_threads`, loaded by the first call (when the first thread starts). */
export function workerThreads(): typeof WorkerThreads {
  return require('node:worker_threads') as typeof WorkerThreads;
}
