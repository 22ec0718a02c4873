import { execFileSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeProcess, type ServeProcess } from './testing/serveProcess';

/**
 * Paths named by a request, against the real `cra serve` process: reading `/dev/zero` whole ended
 * the process (std::bad_alloc) and opening a FIFO froze its event loop, which only a separate
 * process can show.
 */
let serve: ServeProcess;
let child: ChildProcess;
let root: string;
let url: URL;
const output = () => serve.output();

beforeAll(async () => {
  serve = await startServeProcess('cra-serve-paths-');
  ({ child, root, url } = serve);
}, 60_000);

afterAll(async () => {
  await serve.stop('SIGKILL');
});

/** POST one API call; a frozen server fails the call after 20 s instead of hanging the test. */
async function call(method: string, body: unknown): Promise<{ status: number; body: { ok: boolean; error?: { code: string; message: string } } }> {
  const res = await fetch(`${url.origin}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${url.searchParams.get('token') ?? ''}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as { ok: boolean; error?: { code: string; message: string } } };
}

describe('cra serve and paths a request names', () => {
  it('answers 400 to a plan that is /dev/zero, a FIFO or not a plan, and keeps serving', async () => {
    const zero = await call('training/curate', { plan: '/dev/zero' });
    expect(zero.status, output()).toBe(400);
    expect(zero.body.error?.message).toMatch(/"\/dev\/zero" is a character device, not a file; give the file cra train-plan wrote/);

    const fifo = join(root, 'plan.fifo');
    execFileSync('mkfifo', [fifo]);
    const piped = await call('training/curate', { plan: fifo });
    expect(piped.status, output()).toBe(400);
    expect(piped.body.error?.message).toMatch(/plan\.fifo" is a named pipe \(FIFO\), not a file/);

    const secret = join(root, 'secret.env');
    writeFileSync(secret, 'TOKEN=s3cr3t-value-42\n');
    const notPlan = await call('training/curate', { plan: secret });
    expect(notPlan.status).toBe(400);
    expect(notPlan.body.error?.message).toMatch(/secret\.env is not JSON, so it is not a training plan/);
    expect(notPlan.body.error?.message).not.toContain('s3cr3t');

    // The key's old name (renamed in issue 23, an alias for one release) takes the same route and checks.
    const viaOldKey = await call('data/curate', { plan: '/dev/zero' });
    expect(viaOldKey.status, output()).toBe(400);
    expect(viaOldKey.body.error?.message).toBe(zero.body.error?.message);

    const info = await call('app/info', {});
    expect(info.status).toBe(200);
    expect(info.body.ok).toBe(true);
    expect(child.exitCode, output()).toBeNull();
  }, 90_000);
});
