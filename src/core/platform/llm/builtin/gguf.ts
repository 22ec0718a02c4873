/**
 * The GGUF header: what a model is (architecture, layers, context length, attention shape) read
 * from the first bytes of the file — locally, or over HTTP with a Range request before downloading
 * it — and the memory it needs estimated from that. Large arrays (the tokenizer's vocabulary) are
 * skipped, not kept.
 */
import type * as FsPromises from 'node:fs/promises';
import { AppError } from '../../../../shared/contract';

/** node:fs/promises' open, loaded by the first model file read or written: a command that touches none never loads the module (issue #25). */
function open(...args: Parameters<typeof FsPromises.open>): ReturnType<typeof FsPromises.open> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('node:fs/promises') as typeof FsPromises).open(...args);
}

/** What the header says. */
export interface GgufHeader {
  version: number;
  tensorCount: number;
  /** Scalar and string metadata (arrays are recorded by their length only). */
  metadata: Record<string, string | number | boolean | bigint>;
  architecture?: string;
  /** Bytes the header (metadata and tensor index) takes; the weights follow. */
  headerBytes: number;
}

/** The buffer ends before the header does: read more. */
export class GgufNeedMore extends Error {}

const MAGIC = 0x46554747; // "GGUF" little-endian

/** Parse a GGUF header from its first bytes; throws {@link GgufNeedMore} when `buf` ends too soon, VALIDATION when it is not GGUF. */
export function parseGgufHeader(buf: Buffer): GgufHeader {
  let at = 0;
  const need = (n: number) => {
    if (at + n > buf.length) throw new GgufNeedMore(`need ${at + n} bytes`);
  };
  const u32 = () => (need(4), (at += 4), buf.readUInt32LE(at - 4));
  const u64 = () => (need(8), (at += 8), buf.readBigUInt64LE(at - 8));
  const str = () => {
    const n = Number(u64());
    need(n);
    at += n;
    return buf.toString('utf8', at - n, at);
  };
  const SIZES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
  const scalar = (type: number): string | number | boolean | bigint => {
    const size = SIZES[type];
    if (type === 8) return str();
    if (size === undefined) throw notGguf(`unknown value type ${type}`);
    need(size);
    at += size;
    const p = at - size;
    switch (type) {
      case 0: return buf.readUInt8(p);
      case 1: return buf.readInt8(p);
      case 2: return buf.readUInt16LE(p);
      case 3: return buf.readInt16LE(p);
      case 4: return buf.readUInt32LE(p);
      case 5: return buf.readInt32LE(p);
      case 6: return buf.readFloatLE(p);
      case 7: return buf.readUInt8(p) !== 0;
      case 10: return buf.readBigUInt64LE(p);
      case 11: return buf.readBigInt64LE(p);
      default: return buf.readDoubleLE(p);
    }
  };
  if (buf.length >= 4 && buf.readUInt32LE(0) !== MAGIC) throw notGguf('it does not start with "GGUF"');
  u32();
  const version = u32();
  if (version < 2 || version > 3) throw notGguf(`GGUF version ${version} is not supported (2 and 3 are)`);
  const tensorCount = Number(u64());
  const kvCount = Number(u64());
  const metadata: GgufHeader['metadata'] = {};
  for (let i = 0; i < kvCount; i++) {
    const key = str();
    const type = u32();
    if (type === 9) {
      const itemType = u32();
      const count = Number(u64());
      const size = SIZES[itemType];
      if (size !== undefined) {
        need(size * count);
        at += size * count;
      } else if (itemType === 8) for (let j = 0; j < count; j++) str();
      else throw notGguf(`unsupported array item type ${itemType}`);
      metadata[`${key}.length`] = count;
    } else metadata[key] = scalar(type);
  }
  for (let i = 0; i < tensorCount; i++) {
    str();
    const dims = u32();
    need(dims * 8 + 12);
    at += dims * 8 + 12;
  }
  const architecture = metadata['general.architecture'];
  return { version, tensorCount, metadata, ...(typeof architecture === 'string' ? { architecture } : {}), headerBytes: at };
}

function notGguf(why: string): AppError {
  return new AppError('VALIDATION', `Not a GGUF model file: ${why}. Choose a .gguf file (llama.cpp's format).`);
}

/**
 * Parse a header reading `read(start, end)` (end exclusive) in growing chunks — 256 KiB, doubling
 * up to 64 MiB (a large vocabulary makes headers of several MB).
 */
export async function readGgufHeaderWith(read: (start: number, end: number) => Promise<Buffer>, limit = 64 * 2 ** 20): Promise<GgufHeader> {
  let size = 256 * 1024;
  for (;;) {
    const buf = await read(0, size);
    try {
      return parseGgufHeader(buf);
    } catch (error) {
      if (!(error instanceof GgufNeedMore)) throw error;
      if (buf.length < size) throw notGguf('the file ends inside its header');
      if (size >= limit) throw notGguf(`its header is larger than ${limit / 2 ** 20} MiB`);
      size *= 2;
    }
  }
}

/** The header of a local file. */
export async function readGgufFileHeader(path: string): Promise<GgufHeader> {
  const handle = await open(path, 'r');
  try {
    return await readGgufHeaderWith(async (start, end) => {
      const buf = Buffer.alloc(end - start);
      const { bytesRead } = await handle.read(buf, 0, buf.length, start);
      return buf.subarray(0, bytesRead);
    });
  } finally {
    await handle.close();
  }
}

/**
 * Memory to run a model: its file (the weights are mapped whole) plus an f16 KV cache for
 * `contextTokens` (2 × layers × context × KV heads × head size × 2 bytes) plus 10% for compute
 * buffers. Undefined fields of the header make the KV part 0.
 */
export function estimateMemoryBytes(header: GgufHeader, fileBytes: number, contextTokens = 8192): { bytes: number; kvBytes: number; contextTokens: number } {
  const arch = header.architecture ?? '';
  const num = (key: string) => {
    const v = header.metadata[`${arch}.${key}`];
    return typeof v === 'number' || typeof v === 'bigint' ? Number(v) : undefined;
  };
  const layers = num('block_count') ?? 0;
  const embedding = num('embedding_length') ?? 0;
  const heads = num('attention.head_count') ?? 0;
  const kvHeads = num('attention.head_count_kv') ?? heads;
  const keyLength = num('attention.key_length') ?? (heads ? embedding / heads : 0);
  const ctx = Math.min(contextTokens, num('context_length') ?? contextTokens);
  const kvBytes = Math.round(2 * layers * ctx * kvHeads * keyLength * 2);
  return { bytes: Math.round((fileBytes + kvBytes) * 1.1), kvBytes, contextTokens: ctx };
}
