import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeProcess, type ServeProcess } from './testing/serveProcess';
import { packageRoot } from '../../core/platform/paths';
import { frame, sendRawFrame } from './testing/raw';

/**
 * The real `cra serve` process: an unhandled 'error' event ends a process, which the in-process
 * tests (where the test runner catches it) cannot show.
 */
let serve: ServeProcess;
let child: ChildProcess;
let root: string;
let url: URL;
const output = () => serve.output();

beforeAll(async () => {
  serve = await startServeProcess('cra-serve-process-');
  ({ child, root, url } = serve);
}, 60_000);

afterAll(async () => {
  await serve.stop('SIGTERM');
});

describe('cra serve (its own process)', () => {
  it('closes a socket that sends a bad frame and keeps serving', async () => {
    const port = Number(url.port);
    const token = url.searchParams.get('token') ?? '';
    const bad = [
      frame(1, Buffer.alloc(0), { declaredLength: 8 * 1024 * 1024 + 1 }),
      frame(1, Buffer.from([0xff, 0xfe])),
      frame(1, Buffer.from('{}'), { mask: false }),
    ];
    const codes: Array<number | undefined> = [];
    for (const bytes of bad) codes.push(await sendRawFrame(port, `/ws?token=${token}`, bytes));
    expect(codes).toEqual([1009, 1007, 1002]);
    const res = await fetch(`${url.origin}/api/app/info`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(child.exitCode, output()).toBeNull();
  }, 30_000);

  it('a second cra serve on the taken port says the port is taken and how to pick another, not "internal error: EADDRINUSE"', async () => {
    const args = [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', join(root, 'data2'), 'serve', '--port', url.port, '--renderer', root];
    const second = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    second.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => second.once('close', resolve));
    expect(stderr).toBe(`cra: error: Port ${url.port} on 127.0.0.1 is taken (another \`cra serve\`, or another program, listens there); pick another with --port N (--port 0 picks a free one).\n`);
    expect(code).toBe(1);
    expect(child.exitCode, output()).toBeNull();
  }, 60_000);
});
