/**
 * A loopback HTTP server that serves one file the way Hugging Face does for downloads: Range
 * requests (206 with Content-Range), an ETag and the file's sha256 in X-Linked-ETag, optionally a
 * required bearer token, a corrupted body, or a body held after the first bytes until `release()`
 * (so a test can kill the downloader mid-file).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server does. */
export interface GgufServerOptions {
  token?: string;
  /** Flip one byte in the middle of every body. */
  corrupt?: boolean;
  /** Send this many bytes of a whole-file body, then wait for `release()`. */
  holdAfter?: number;
}

/** A running server. */
export interface GgufServer {
  url: string;
  /** Range headers of the requests seen ('' when none). */
  ranges: string[];
  release(): void;
  close(): Promise<void>;
}

/** Serve `data` at `<url>`. */
export async function startGgufServer(data: Buffer, options: GgufServerOptions = {}): Promise<GgufServer> {
  const sha = createHash('sha256').update(data).digest('hex');
  const ranges: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    ranges.push(req.headers.range ?? '');
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) return void res.writeHead(401).end('gated');
    const body = Buffer.from(data);
    if (options.corrupt) body[body.length >> 1] = (body[body.length >> 1] ?? 0) ^ 0xff;
    const headers = { etag: '"v1"', 'x-linked-etag': `"${sha}"`, 'accept-ranges': 'bytes' };
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (m) {
      const start = Number(m[1]);
      const end = m[2] ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
      res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${body.length}`, 'content-length': end - start + 1 });
      return void res.end(body.subarray(start, end + 1));
    }
    res.writeHead(200, { ...headers, 'content-length': body.length });
    if (options.holdAfter === undefined) return void res.end(body);
    res.write(body.subarray(0, options.holdAfter));
    void released.then(() => res.end(body.subarray(options.holdAfter)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/model.gguf`,
    ranges,
    release,
    close: () =>
      new Promise((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
