import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../core/platform/paths';

/** A loopback port with nothing listening: the Electron download is refused there at once. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

// `npm start` runs this script first. Where the Electron binary is already there it downloads
// nothing, so the failed download cannot be shown (and the test has nothing to check).
const downloaded = existsSync(join(packageRoot(), 'node_modules', 'electron', 'path.txt'));

it.skipIf(downloaded)('npm start without the Electron download prints the advice with its reason, not the installer stack trace', async () => {
  const cache = mkdtempSync(join(tmpdir(), 'cra-electron-cache-'));
  try {
    const mirror = `http://127.0.0.1:${await closedPort()}/`;
    const out = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'ensure-native.mjs'), 'electron'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ELECTRON_MIRROR: mirror, electron_config_cache: cache, CRA_DEBUG: '' } });
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/^ensure-native: could not download Electron \(RequestError: connect ECONNREFUSED 127\.0\.0\.1:\d+\)\. Check the network \(or a proxy\), then run `npm start` again\. The browser mode works without it: `npx cra serve`\.\n$/);
    expect(out.stderr).not.toMatch(/^\s+at /m);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}, 90_000);
