import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixtures/app';
import { createFixtureRepo, type FixtureRepo } from './fixtures/gitRepo';

/**
 * A page on another 127.0.0.1 port is the same *site* as `cra serve` to a browser, so the
 * SameSite=Strict cookie goes with its requests. The server must still refuse them: this spec opens
 * the app first (the browser gets the cookie), then such a page that tries every way a page can
 * send a request (CORS fetch, no-cors fetch, a form post, a WebSocket) to register a folder.
 */

let repo: FixtureRepo;
let attacker: Server;
let attackerOrigin: string;

/** The attacking page: it tries to register `path` with the app at `target` and reports what it saw. */
function attackPage(target: string, path: string): string {
  const body = JSON.stringify({ path });
  return `<!doctype html><title>other local app</title>
<form id="form" method="POST" action="${target}/api/repos/add" enctype="text/plain" target="sink">
  <input name='{"path":"' value='","path":${JSON.stringify(path)}}'>
</form>
<iframe name="sink" id="sink"></iframe>
<script>
window.report = {};
async function run() {
  try {
    const res = await fetch('${target}/api/repos/add', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: '${body}' });
    report.cors = 'status ' + res.status;
  } catch (error) { report.cors = 'blocked: ' + error.message; }
  try {
    const res = await fetch('${target}/api/repos/add', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '${body}' });
    report.noCors = res.type;
  } catch (error) { report.noCors = 'blocked: ' + error.message; }
  report.socket = await new Promise((resolve) => {
    const ws = new WebSocket('${target.replace('http:', 'ws:')}/ws');
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: 'invoke', id: 1, method: 'repos/add', input: ${body} }));
      ws.onmessage = (event) => resolve('opened and answered: ' + event.data);
    };
    ws.onclose = () => resolve('closed');
  });
  document.getElementById('form').submit();
  report.done = true;
}
run();
</script>`;
}

test.beforeEach(async () => {
  repo = createFixtureRepo();
});
test.afterEach(async () => {
  repo.remove();
  await new Promise<void>((resolve) => attacker.close(() => resolve()));
});

test('a page on another local port cannot use the API or the socket', async ({ page, app }) => {
  const appOrigin = new URL(app.url).origin;
  const token = new URL(app.url).searchParams.get('token') ?? '';
  attacker = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(attackPage(appOrigin, repo.dir));
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;

  // The user has the app open: the browser holds its cookie.
  await page.goto(app.url);
  await expect(page.getByRole('heading', { name: 'Repositories' })).toBeVisible();
  const cookies = await page.context().cookies(appOrigin);
  expect(cookies.map((c) => c.name)).toContain('cra_token');

  // Every response the app's server gave to the other page's requests, as the browser saw them.
  const statuses: Array<{ method: string; url: string; status: number }> = [];
  const other = await page.context().newPage();
  other.on('response', (res) => {
    if (res.url().startsWith(`${appOrigin}/api/`)) statuses.push({ method: res.request().method(), url: res.url(), status: res.status() });
  });
  await other.goto(attackerOrigin);
  await expect.poll(() => other.evaluate(() => (window as unknown as { report: { done?: boolean } }).report.done === true)).toBe(true);
  const report = await other.evaluate(() => (window as unknown as { report: Record<string, string> }).report);
  expect(report.cors).toMatch(/^blocked/);
  expect(report.noCors).toBe('opaque');
  expect(report.socket).toBe('closed');
  // The form post lands in the iframe; wait for its response.
  await expect.poll(() => statuses.filter((s) => s.method === 'POST').length).toBeGreaterThanOrEqual(2);
  for (const s of statuses) expect(s.status, `${s.method} ${s.url}`).toBeGreaterThanOrEqual(400);
  expect(statuses.filter((s) => s.method === 'POST').every((s) => s.status === 403)).toBe(true);

  // Nothing was registered: ask the app's own API, as a script with the token.
  const list = await fetch(`${appOrigin}/api/repos/list`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(await list.json()).toEqual({ ok: true, value: [] });
  // The app's own page, from its own origin, still registers the same folder over its socket.
  await page.bringToFront();
  await expect(page.getByTestId('repo-row')).toHaveCount(0);
  await page.getByLabel('Repository folder path').fill(repo.dir);
  await page.getByRole('button', { name: 'Add repository' }).click();
  await expect(page.getByTestId('repo-row')).toHaveCount(1);
});
