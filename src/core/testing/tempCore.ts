import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../app/createCore';

/** An engine over a fresh temporary data folder, for tests; `cleanup` disposes it and deletes the folder. */
export function createTempCore(): { core: Core; dataDir: string; cleanup(): Promise<void> } {
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-test-'));
  const core = createCore({ host: 'test', dataDir });
  return {
    core,
    dataDir,
    cleanup: async () => {
      await core.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
