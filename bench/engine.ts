import { mkdirSync } from 'node:fs';
import { createCore } from '../src/core/app/createCore';
import { localClient, type EngineClient } from '../src/core/app/contract/client';

/**
 * The engine as the product wires it (`createCore`), over a data folder of the bench's, and the
 * client a host uses (`localClient`: every request validated by the contract, as the app's and the
 * CLI's). Benches measure through it, so they measure the wiring the product runs.
 */
export function benchEngine(dataDir: string): EngineClient {
  mkdirSync(dataDir, { recursive: true });
  return localClient(createCore({ host: 'test', dataDir }));
}
