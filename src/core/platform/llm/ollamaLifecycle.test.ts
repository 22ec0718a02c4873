import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelServerStatus } from '../../../shared/contract';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { probeVersion } from './modelManager';
import { findOnPath, OllamaLifecycle } from './ollamaLifecycle';

let dir: string;
let fakeBin: string;

/** A stand-in `ollama` executable: `--version` prints a version, `serve` answers /api/version on OLLAMA_HOST. */
const FAKE_OLLAMA = `#!${process.execPath}
const http = require('node:http');
if (process.argv[2] === '--version') { console.log('ollama version is 0.0.1-fake'); process.exit(0); }
if (process.argv[2] === 'serve') {
  const [host, port] = process.env.OLLAMA_HOST.split(':');
  http.createServer((req, res) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ version: '0.0.1-fake' })); }).listen(Number(port), host);
}
`;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cra-ollama-bin-'));
  fakeBin = join(dir, 'ollama');
  writeFileSync(fakeBin, FAKE_OLLAMA);
  chmodSync(fakeBin, 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lifecycle(address: string, PATH: string, allowStart = false) {
  const seen: ModelServerStatus[] = [];
  const lc = new OllamaLifecycle({ target: () => ({ address, provider: 'ollama', allowStart }), onStatus: (s) => seen.push(s), env: { PATH }, startTimeoutS: 10 });
  return { lc, seen };
}

describe('OllamaLifecycle', () => {
  it('finds the binary on PATH', () => {
    expect(findOnPath('ollama', { PATH: `/nonexistent:${dir}` })).toBe(fakeBin);
    expect(findOnPath('ollama', { PATH: '/nonexistent' })).toBeUndefined();
  });

  it('says no model server answers at a configured address instead of "not installed"', async () => {
    const address = `http://127.0.0.1:${await freePort()}`;
    for (const source of ['OLLAMA_HOST', 'base_url'] as const) {
      const lc = new OllamaLifecycle({ target: () => ({ address, provider: 'ollama', allowStart: false, source }), onStatus: () => undefined, env: { PATH: '/nonexistent' } });
      const status = await lc.check();
      expect(status).toMatchObject({ state: 'unreachable', reachable: false, address });
      expect(status.hint).toContain(`No model server answers at ${address} (set by ${source === 'base_url' ? '[models].base_url' : 'OLLAMA_HOST'})`);
      expect(status.hint).not.toContain('not installed');
    }
    const local = new OllamaLifecycle({ target: () => ({ address, provider: 'ollama', allowStart: false, source: 'default' }), onStatus: () => undefined, env: { PATH: '/nonexistent' } });
    expect(await local.check()).toMatchObject({ state: 'not_installed', hint: expect.stringContaining(`nothing answers at ${address}`) });
  });

  it('says how to install Ollama when it is not installed and nothing answers', async () => {
    const { lc, seen } = lifecycle(`http://127.0.0.1:${await freePort()}`, '/nonexistent');
    const status = await lc.check();
    expect(status).toMatchObject({ state: 'not_installed', reachable: false, startedByUs: false });
    expect(status.hint).toContain('https://ollama.com/download');
    expect(seen).toHaveLength(1);
  });

  it('reports a running server with its version', async () => {
    const server = await OllamaTestServer.start();
    try {
      const status = await lifecycle(server.url, dir).lc.check();
      expect(status).toMatchObject({ state: 'running', reachable: true, version: '0.9.0-test', binaryPath: fakeBin, binaryVersion: '0.0.1-fake', startedByUs: false });
    } finally {
      await server.close();
    }
  });

  it('does not start the server unless allowed, and says how', async () => {
    const status = await lifecycle(`http://127.0.0.1:${await freePort()}`, dir).lc.check();
    expect(status).toMatchObject({ state: 'not_running', binaryPath: fakeBin });
    expect(status.hint).toMatch(/not running.*ollama serve/);
  });

  it('starts `ollama serve` when allowed and stops only the server it started', async () => {
    const address = `http://127.0.0.1:${await freePort()}`;
    const { lc, seen } = lifecycle(address, dir, true);
    const status = await lc.check();
    expect(status).toMatchObject({ state: 'running', startedByUs: true, version: '0.0.1-fake' });
    expect(seen.map((s) => s.state)).toEqual(['starting', 'running']);
    await lc.stop();
    expect(await probeVersion(address, 500)).toBeUndefined();
  });

  it('never stops a server it did not start', async () => {
    const server = await OllamaTestServer.start();
    try {
      const { lc } = lifecycle(server.url, dir, true);
      expect((await lc.check()).startedByUs).toBe(false);
      await lc.stop();
      expect((await lc.check()).reachable).toBe(true);
    } finally {
      await server.close();
    }
  });
});
