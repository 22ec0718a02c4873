/** Raw HTTP and WebSocket clients that send what browsers and fetch() never would (test support only). */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';

/** One HTTP answer. */
export interface RawAnswer {
  status: number;
  body: string;
}

/**
 * An HTTP request with exactly these headers (Host included, which fetch() will not let us set)
 * and the path sent as written (no URL normalisation).
 */
export function rawRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.body !== undefined && !options.chunked) headers['content-length'] = Buffer.byteLength(options.body);
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.chunked && options.body !== undefined) {
      // Several writes without a Content-Length: the server learns the size only as it reads.
      const body = Buffer.from(options.body);
      const step = 1024 * 1024;
      for (let at = 0; at < body.length; at += step) req.write(body.subarray(at, at + step));
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

/** A client frame: `mask` false makes the unmasked frame a client must never send. */
export function frame(opcode: number, payload: Buffer, options: { mask?: boolean; declaredLength?: number } = {}): Buffer {
  const mask = options.mask ?? true;
  const length = options.declaredLength ?? payload.length;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([0x80 | opcode, (mask ? 0x80 : 0) | length]);
  } else if (length < 65536) {
    header = Buffer.from([0x80 | opcode, (mask ? 0x80 : 0) | 126, 0, 0]);
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = (mask ? 0x80 : 0) | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!mask) return Buffer.concat([header, payload]);
  const key = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ (key[i % 4] ?? 0)));
  return Buffer.concat([header, key, masked]);
}

/**
 * Open a WebSocket by hand, send `bytes` after the handshake and resolve with the close code the
 * server sent back (undefined when it closed without a close frame).
 */
export function sendRawFrame(port: number, path: string, bytes: Buffer): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let upgraded = false;
    socket.on('connect', () => {
      socket.write(
        [
          `GET ${path} HTTP/1.1`,
          `Host: 127.0.0.1:${port}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
          'Sec-WebSocket-Version: 13',
          '',
          '',
        ].join('\r\n'),
      );
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!upgraded) {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = received.subarray(0, end).toString('latin1');
        if (!head.startsWith('HTTP/1.1 101')) {
          socket.destroy();
          reject(new Error(`no upgrade: ${head.split('\r\n')[0] ?? ''}`));
          return;
        }
        upgraded = true;
        received = received.subarray(end + 4);
        socket.write(bytes);
      }
      // A close frame: 0x88, a 7-bit length, then the 2-byte code. We do not answer it (the server
      // would wait for that before closing), we just hang up.
      if (received[0] === 0x88 && received.length >= 4) {
        resolve(received.readUInt16BE(2));
        socket.destroy();
      }
    });
    socket.on('error', () => undefined); // the server may reset after its close frame
    socket.on('close', () => resolve(undefined));
  });
}
