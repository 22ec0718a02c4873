import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { WsServerMessage } from '../../shared/contract';
import { createTempCore } from '../../core/testing/tempCore';
import { startServer, type RunningServer } from './server';
import { frame, rawRequest, sendRawFrame } from './testing/raw';

let env: ReturnType<typeof createTempCore>;
let server: RunningServer;
let base: string;

beforeAll(async () => {
  env = createTempCore();
  const renderer = mkdtempSync(join(tmpdir(), 'cra-renderer-'));
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Clean Room</title>');
  mkdirSync(join(renderer, 'assets'));
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(renderer, 'assets', '100%.js'), 'console.log(100)');
  server = await startServer({ core: env.core, port: 0, rendererDir: renderer });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.close();
  await env.cleanup();
});

function openSocket(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function bearerJson(): Record<string, string> {
  return { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
}

describe('cra serve', () => {
  it('listens on 127.0.0.1 and prints a URL with the token', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
  });

  it('refuses pages, assets and API calls without the token', async () => {
    expect((await fetch(`${base}/`)).status).toBe(401);
    expect((await fetch(`${base}/assets/app.js`)).status).toBe(401);
    expect((await fetch(`${base}/api/app/info`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect((await fetch(`${base}/?token=wrong`, { redirect: 'manual' })).status).toBe(401);
  });

  it('trades the token for a cookie, then serves the app with a strict CSP', async () => {
    const first = await fetch(server.url, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const page = await fetch(`${base}/`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('Clean Room');
  });

  it('answers the contract over HTTP with a bearer token', async () => {
    const res = await fetch(`${base}/api/app/info`, { method: 'POST', headers: bearerJson(), body: '{}' });
    const body = (await res.json()) as { ok: boolean; value: { dataDir: string } };
    expect(body.ok).toBe(true);
    expect(body.value.dataDir).toBe(env.dataDir);
    const bad = await fetch(`${base}/api/run/cancel`, { method: 'POST', headers: bearerJson(), body: '{"runId": 5}' });
    expect(await bad.json()).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
  });

  it('does not serve files outside the renderer folder', async () => {
    for (const path of ['/..%2F..%2Fetc%2Fpasswd', '/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2F..%2F..%2Fetc%2Fhostname']) {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${server.token}` } });
      const body = await res.text();
      expect(body).not.toContain('root:');
      expect([200, 403, 404]).toContain(res.status);
      if (res.status === 200) expect(body).toContain('<title>Clean Room</title>');
    }
  });

  it('rejects sockets without the token or from another origin', async () => {
    await expect(openSocket(`ws://127.0.0.1:${server.port}/ws`)).rejects.toThrow('401');
    await expect(openSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { origin: 'http://evil.example' })).rejects.toThrow('403');
  });

  it('invokes over the socket and pushes events tagged with the run id', async () => {
    const ws = await openSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`);
    const messages: WsServerMessage[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data)) as WsServerMessage));
    ws.send(JSON.stringify({ type: 'invoke', id: 1, method: 'app/info', input: {} }));
    const { runId, done } = env.core.runs.start('pull', 'socket test', async (ctx) => {
      ctx.progress({ phase: 'working', done: 1, total: 1 });
      return { model: 'socket-test' };
    }, { model: 'socket-test' });
    await done;
    await expect.poll(() => messages.filter((m) => m.type === 'event' && m.event === 'run/finished').length).toBeGreaterThan(0);
    const result = messages.find((m) => m.type === 'result');
    expect(result).toMatchObject({ type: 'result', id: 1, envelope: { ok: true } });
    const progress = messages.find((m) => m.type === 'event' && m.event === 'run/progress');
    expect(progress).toMatchObject({ payload: { runId, phase: 'working' } });
    ws.close();
  });
});

/** The server still serves a plain good request (it did not die, and did not stop answering). */
async function stillAnswers(): Promise<void> {
  const res = await fetch(`${base}/api/app/info`, { method: 'POST', headers: bearerJson(), body: '{}' });
  expect(await res.json()).toMatchObject({ ok: true, value: { dataDir: env.dataDir } });
}

describe('cra serve refuses bad input without falling over', () => {
  const wsPath = () => `/ws?token=${server.token}`;

  it('closes only the socket that sent a frame over the size limit (1009)', async () => {
    const code = await sendRawFrame(server.port, wsPath(), frame(1, Buffer.alloc(0), { declaredLength: 8 * 1024 * 1024 + 1 }));
    expect(code).toBe(1009);
    await stillAnswers();
  });

  it('closes only the socket that sent a text frame that is not UTF-8 (1007)', async () => {
    const code = await sendRawFrame(server.port, wsPath(), frame(1, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])));
    expect(code).toBe(1007);
    await stillAnswers();
  });

  it('closes only the socket that sent an unmasked frame (1002)', async () => {
    const code = await sendRawFrame(server.port, wsPath(), frame(1, Buffer.from('{}'), { mask: false }));
    expect(code).toBe(1002);
    await stillAnswers();
  });

  it('answers 400 to malformed percent-encoding in the path', async () => {
    const auth = { authorization: `Bearer ${server.token}` };
    for (const path of ['/%', '/%ff', '/assets/%E0%A4%A']) {
      const res = await rawRequest(server.port, path, { headers: auth });
      expect(res.status, path).toBe(400);
      expect(res.body).toContain('percent-encoding');
    }
    // Decoded once: an encoded % names a file with a % in its name.
    const percent = await rawRequest(server.port, '/assets/100%25.js', { headers: auth });
    expect(percent).toEqual({ status: 200, body: 'console.log(100)' });
    const api = await rawRequest(server.port, '/api/%', { method: 'POST', headers: { ...bearerJson() }, body: '{}' });
    expect(api.status).toBe(400);
    await stillAnswers();
  });

  it('answers 413 with the limit to an oversized body, declared or streamed', async () => {
    const big = `{"x":"${'a'.repeat(8 * 1024 * 1024)}"}`;
    const declared = await rawRequest(server.port, '/api/app/info', { method: 'POST', headers: bearerJson(), body: big });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ ok: false, error: { code: 'VALIDATION', message: expect.stringContaining('8 MiB') } });
    const streamed = await rawRequest(server.port, '/api/app/info', { method: 'POST', headers: bearerJson(), body: big, chunked: true });
    expect(streamed.status).toBe(413);
    await stillAnswers();
  });

  it('refuses a Host that is not 127.0.0.1 or localhost (DNS rebinding), on HTTP and on the socket', async () => {
    const withHost = (host: string) => ({ ...bearerJson(), host });
    for (const host of ['evil.example', `evil.example:${server.port}`, `127.0.0.1.evil.example:${server.port}`]) {
      const res = await rawRequest(server.port, '/api/app/info', { method: 'POST', headers: withHost(host), body: '{}' });
      expect(res.status, host).toBe(403);
      expect(res.body).toContain(`"${host}"`);
    }
    expect((await rawRequest(server.port, '/', { headers: withHost('evil.example') })).status).toBe(403);
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, 'localhost:8080']) {
      const res = await rawRequest(server.port, '/api/app/info', { method: 'POST', headers: withHost(host), body: '{}' });
      expect(res.status, host).toBe(200);
    }
    await expect(openSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { host: 'evil.example' })).rejects.toThrow('403');
  });

  it("refuses API calls whose Origin or Sec-Fetch-Site is not the app's own origin, even with the cookie", async () => {
    const cookie = `cra_token=${server.token}`;
    const own = `http://127.0.0.1:${server.port}`;
    const json = { cookie, 'content-type': 'application/json' };
    const otherPort = await rawRequest(server.port, '/api/repos/add', {
      method: 'POST',
      headers: { ...json, origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' },
      body: `{"path": ${JSON.stringify(env.dataDir)}}`,
    });
    expect(otherPort.status).toBe(403);
    expect(JSON.parse(otherPort.body)).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    expect((await rawRequest(server.port, '/api/app/info', { method: 'POST', headers: { ...json, origin: 'http://localhost:1' }, body: '{}' })).status).toBe(403);
    expect((await rawRequest(server.port, '/api/app/info', { method: 'POST', headers: { ...json, origin: 'null' }, body: '{}' })).status).toBe(403);
    expect((await rawRequest(server.port, '/api/app/info', { method: 'POST', headers: { ...json, 'sec-fetch-site': 'cross-site' }, body: '{}' })).status).toBe(403);
    const same = await rawRequest(server.port, '/api/app/info', { method: 'POST', headers: { ...json, origin: own, 'sec-fetch-site': 'same-origin' }, body: '{}' });
    expect(same.status).toBe(200);
    expect(await env.core.handlers['repos/list']({})).toEqual([]);
    await expect(openSocket(`ws://127.0.0.1:${server.port}/ws`, { cookie, origin: 'http://127.0.0.1:1' })).rejects.toThrow('403');
    const ws = await openSocket(`ws://127.0.0.1:${server.port}/ws`, { cookie, origin: own });
    ws.close();
  });

  it('refuses API bodies that are not declared as JSON (form posts, no-cors text/plain)', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      const headers: Record<string, string> = { authorization: `Bearer ${server.token}` };
      if (type !== undefined) headers['content-type'] = type;
      const res = await rawRequest(server.port, '/api/app/info', { method: 'POST', headers, body: '{}' });
      expect(res.status, type).toBe(415);
      expect(res.body).toContain('application/json');
    }
    const withCharset = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json; charset=utf-8' };
    expect((await rawRequest(server.port, '/api/app/info', { method: 'POST', headers: withCharset, body: '{}' })).status).toBe(200);
  });
});
