import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGgufServer, type GgufServer } from '../../../testing/ggufServer';
import { REAL_GGUF_BYTES, REAL_GGUF_SHA256, realGgufPath } from '../../../testing/realGguf';
import { BUILTIN_CATALOG } from './catalog';
import { downloadModel, probeRemoteModel } from './download';
import { ModelStore } from './modelStore';

const data = readFileSync(realGgufPath());
let server: GgufServer | undefined;
let dir: string;
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});
const fresh = () => (dir = mkdtempSync(join(tmpdir(), 'cra-dl-')));

/** A real child process that downloads `url` to `dest` (through tsx, as the CLI runs from the sources). */
function downloaderChild(url: string, dest: string) {
  const code = `require('tsx/cjs/api').register(); require(${JSON.stringify(join(__dirname, 'download.ts'))}).downloadModel({ url: ${JSON.stringify(url)}, dest: ${JSON.stringify(dest)}, onProgress: (p) => process.stdout.write(p.receivedBytes + '\\n') });`;
  return spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
}

describe('model downloads', () => {
  it('resumes a download whose process was killed with SIGKILL mid-file (HTTP Range) and verifies the sha256', async () => {
    fresh();
    server = await startGgufServer(data, { holdAfter: 300_000 });
    const dest = join(dir, 'gguf', 'stories.gguf');
    const child = downloaderChild(server.url, dest);
    await new Promise<void>((resolve) => child.stdout.on('data', (c: Buffer) => Number(c.toString().trim().split('\n').pop()) >= 300_000 && resolve()));
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGKILL');
    await exited;
    expect(existsSync(dest)).toBe(false);
    expect(statSync(`${dest}.part`).size).toBe(300_000);
    const seen: number[] = [];
    const done = await downloadModel({ url: server.url, dest, onProgress: (p) => seen.push(p.resumedFrom) });
    expect(server.ranges.at(-1)).toBe('bytes=300000-');
    expect(seen.every((r) => r === 300_000)).toBe(true);
    expect(done).toEqual({ path: dest, sizeBytes: REAL_GGUF_BYTES, sha256: REAL_GGUF_SHA256 });
    expect(readFileSync(dest).equals(data)).toBe(true);
    expect(existsSync(`${dest}.part`)).toBe(false);
  });

  it('keeps the partial file on Cancel and resumes it', async () => {
    fresh();
    server = await startGgufServer(data, { holdAfter: 200_000 });
    const dest = join(dir, 'm.gguf');
    const controller = new AbortController();
    const cancelled = downloadModel({ url: server.url, dest, signal: controller.signal, onProgress: (p) => p.receivedBytes >= 200_000 && controller.abort() });
    await expect(cancelled).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(statSync(`${dest}.part`).size).toBe(200_000);
    expect((await downloadModel({ url: server.url, dest })).sha256).toBe(REAL_GGUF_SHA256);
  });

  it('refuses a corrupted file and leaves nothing behind', async () => {
    fresh();
    server = await startGgufServer(data, { corrupt: true });
    const dest = join(dir, 'm.gguf');
    await expect(downloadModel({ url: server.url, dest })).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringMatching(/corrupt \(sha256 [0-9a-f]{64} instead of 270cba1b/) });
    expect([existsSync(dest), existsSync(`${dest}.part`)]).toEqual([false, false]);
  });

  it('sends the token of a gated model, and says what to do without it', async () => {
    fresh();
    server = await startGgufServer(data, { token: 'hf_secret' });
    const dest = join(dir, 'm.gguf');
    await expect(downloadModel({ url: server.url, dest })).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/gated.*access token/) });
    expect((await downloadModel({ url: server.url, dest, token: 'hf_secret' })).sha256).toBe(REAL_GGUF_SHA256);
  });

  it('reads size, header and memory estimate from a Range request before downloading', async () => {
    fresh();
    server = await startGgufServer(data);
    const info = await probeRemoteModel(server.url, { contextTokens: 1024 });
    expect(info.sizeBytes).toBe(REAL_GGUF_BYTES);
    expect(info.header).toMatchObject({ version: 3, architecture: 'llama', tensorCount: 48 });
    expect(info.header.metadata['llama.context_length']).toBe(2048);
    expect(info.fetchedBytes).toBeLessThan(REAL_GGUF_BYTES);
    expect(server.ranges).toEqual(['bytes=0-262143']);
    // 5 layers × 1024 tokens × 4 KV heads × 8 dims × K and V × 2 bytes.
    expect(info.memory).toMatchObject({ kvBytes: 2 * 5 * 1024 * 4 * 8 * 2, contextTokens: 1024 });
  });

  it('adds a GGUF already on disk by path without copying, and refuses a file that is not GGUF', async () => {
    fresh();
    const store = new ModelStore(dir);
    const added = await store.addByPath('stories', realGgufPath());
    expect(added).toMatchObject({ path: realGgufPath(), sizeBytes: REAL_GGUF_BYTES, source: 'path' });
    expect(store.resolvePath('stories')).toBe(realGgufPath());
    expect(existsSync(store.downloadDir)).toBe(false);
    await expect(store.addByPath('notes', join(__dirname, 'download.ts'))).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringMatching(/Not a GGUF model file/) });
    expect(store.list().map((m) => m.name)).toEqual(['stories']);
  });

  it('records a download in the store under the data folder', async () => {
    fresh();
    server = await startGgufServer(data);
    const store = new ModelStore(dir);
    const model = await store.download('stories', server.url);
    expect(model).toMatchObject({ path: join(dir, 'models', 'gguf', 'model.gguf'), sha256: REAL_GGUF_SHA256, source: 'download' });
    expect(store.resolvePath('stories')).toBe(model.path);
  });

  it('the curated list covers every tier with Q4_K_M files', () => {
    expect(BUILTIN_CATALOG.map((m) => m.name)).toEqual(expect.arrayContaining(['qwen3-0.6b-q4_k_m', 'qwen3-1.7b-q4_k_m', 'qwen3-4b-q4_k_m', 'qwen2.5-coder-3b-q4_k_m', 'nomic-embed-text-v1.5-q4_k_m']));
    for (const m of BUILTIN_CATALOG) expect(m.url).toMatch(/Q4_K_M\.gguf$/i);
  });
});
