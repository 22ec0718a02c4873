import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { WsServerMessage } from '../../shared/contract';
import { createTempCore } from '../../core/testing/tempCore';
import { startServer, type RunningServer } from './server';

let env: ReturnType<typeof createTempCore>;
let server: RunningServer;
let base: string;

beforeAll(async () => {
  env = createTempCore();
  const renderer = mkdtempSync(join(tmpdir(), 'cra-renderer-'));
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Clean Room</title>');
  mkdirSync(join(renderer, 'assets'));
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
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
    const res = await fetch(`${base}/api/app/info`, { method: 'POST', headers: { authorization: `Bearer ${server.token}` }, body: '{}' });
    const body = (await res.json()) as { ok: boolean; value: { dataDir: string } };
    expect(body.ok).toBe(true);
    expect(body.value.dataDir).toBe(env.dataDir);
    const bad = await fetch(`${base}/api/run/cancel`, { method: 'POST', headers: { authorization: `Bearer ${server.token}` }, body: '{"runId": 5}' });
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
    await expect(openSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { origin: 'http://evil.example' })).rejects.toThrow('401');
  });

  it('invokes over the socket and pushes events tagged with the run id', async () => {
    const ws = await openSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`);
    const messages: WsServerMessage[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data)) as WsServerMessage));
    ws.send(JSON.stringify({ type: 'invoke', id: 1, method: 'app/info', input: {} }));
    const { runId, done } = env.core.runs.start('test', 'socket test', async (ctx) => {
      ctx.progress({ phase: 'working', done: 1, total: 1 });
    });
    await done;
    await expect.poll(() => messages.filter((m) => m.type === 'event' && m.event === 'run/finished').length).toBeGreaterThan(0);
    const result = messages.find((m) => m.type === 'result');
    expect(result).toMatchObject({ type: 'result', id: 1, envelope: { ok: true } });
    const progress = messages.find((m) => m.type === 'event' && m.event === 'run/progress');
    expect(progress).toMatchObject({ payload: { runId, phase: 'working' } });
    ws.close();
  });
});
