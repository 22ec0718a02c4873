/**
 * Downloads of GGUF models for the built-in runtime: into `<dest>.part` with progress, resumed
 * after a cancel or a restart with an HTTP Range request (the ETag guards that it is the same file),
 * checked for size and sha256 before it is renamed into place; a token for gated models. And the
 * GGUF header of a remote file read with Range requests, before anything is downloaded.
 */
import { nodeCrypto } from '../../nodeModules';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { dirname } from 'node:path';
import { AppError } from '../../../../shared/contract';
import { estimateMemoryBytes, readGgufHeaderWith, type GgufHeader } from './gguf';

/** node:fs/promises' open, loaded by the first model file read or written: a command that touches none never loads the module (issue #25). */
function open(...args: Parameters<typeof FsPromises.open>): ReturnType<typeof FsPromises.open> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('node:fs/promises') as typeof FsPromises).open(...args);
}

/** Progress of a download. */
export interface DownloadProgress {
  receivedBytes: number;
  totalBytes?: number;
  /** Bytes that were already on disk from an earlier attempt. */
  resumedFrom: number;
}

/** What to download and how to check it. */
export interface DownloadOptions {
  url: string;
  dest: string;
  /** Hugging Face token for gated models (sent as a bearer token). */
  token?: string;
  /** Expected sha256 (hex); default: the server's X-Linked-ETag when it is one (Hugging Face sends the LFS sha256 there). */
  sha256?: string;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
}

const headersFor = (token: string | undefined, extra: Record<string, string> = {}) => ({ ...extra, ...(token ? { authorization: `Bearer ${token}` } : {}) });

function refused(res: Response, url: string): AppError {
  if (res.status === 401 || res.status === 403) return new AppError('UNAUTHORIZED', `${url} needs access (HTTP ${res.status}): this model is gated. Accept its licence on Hugging Face and give your access token.`);
  if (res.status === 404) return new AppError('NOT_FOUND', `${url} was not found (HTTP 404). The model file may have been renamed; check the model list.`);
  return new AppError('MODEL_ERROR', `The download of ${url} failed (HTTP ${res.status}). Try again later.`, { retryable: true });
}

const sha256Of = (file: string) =>
  new Promise<string>((resolve, reject) => {
    const hash = nodeCrypto().createHash('sha256');
    createReadStream(file).on('data', (c) => hash.update(c)).on('end', () => resolve(hash.digest('hex'))).on('error', reject);
  });

/**
 * Download `url` to `dest`. A `.part` file left by an earlier attempt is resumed (Range) when the
 * server still has the same file (same ETag); a cancel keeps it. The finished file must have the
 * announced size and sha256, else it is deleted and the download refused — `dest` never holds a
 * partial or corrupt file.
 */
export async function downloadModel(options: DownloadOptions): Promise<{ path: string; sizeBytes: number; sha256: string }> {
  const part = `${options.dest}.part`;
  const metaFile = `${part}.json`;
  mkdirSync(dirname(options.dest), { recursive: true });
  const meta = existsSync(metaFile) ? (JSON.parse(readFileSync(metaFile, 'utf8')) as { url: string; etag?: string }) : undefined;
  let have = existsSync(part) && meta?.url === options.url ? statSync(part).size : 0;
  const res = await fetch(options.url, { headers: headersFor(options.token, have ? { range: `bytes=${have}-`, ...(meta?.etag ? { 'if-range': meta.etag } : {}) } : {}), signal: options.signal ?? null, redirect: 'follow' });
  if (!res.ok) throw refused(res, options.url);
  if (res.status !== 206) have = 0; // the server sent the whole file (no Range support, or it changed)
  const etag = res.headers.get('etag') ?? undefined;
  const linked = res.headers.get('x-linked-etag')?.replace(/"/g, '');
  const expectedSha = options.sha256 ?? (linked && /^[0-9a-f]{64}$/.test(linked) ? linked : undefined);
  const length = Number(res.headers.get('content-length') ?? NaN);
  const total = res.status === 206 ? Number(res.headers.get('content-range')?.split('/')[1] ?? NaN) : length;
  writeFileSync(metaFile, JSON.stringify({ url: options.url, ...(etag ? { etag } : {}) }));
  const handle = await open(part, have ? 'a' : 'w');
  let received = have;
  try {
    if (!res.body) throw new AppError('MODEL_ERROR', `The download of ${options.url} has no body.`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      await handle.write(chunk);
      received += chunk.length;
      options.onProgress?.({ receivedBytes: received, ...(Number.isFinite(total) ? { totalBytes: total } : {}), resumedFrom: have });
    }
  } catch (error) {
    if (options.signal?.aborted) throw new AppError('CANCELLED', `Download cancelled; ${received} bytes kept in ${part} to resume.`);
    throw error;
  } finally {
    await handle.close();
  }
  const sizeBytes = statSync(part).size;
  const sha256 = await sha256Of(part);
  const badSize = Number.isFinite(total) && sizeBytes !== total;
  if (badSize || (expectedSha && sha256 !== expectedSha)) {
    rmSync(part, { force: true });
    rmSync(metaFile, { force: true });
    const why = badSize ? `${sizeBytes} bytes instead of ${total}` : `sha256 ${sha256} instead of ${expectedSha}`;
    throw new AppError('VALIDATION', `The downloaded file is corrupt (${why}); it was deleted. Download it again.`);
  }
  renameSync(part, options.dest);
  rmSync(metaFile, { force: true });
  return { path: options.dest, sizeBytes, sha256 };
}

/** What a remote GGUF is, read from its header with Range requests (nothing else is downloaded). */
export interface RemoteModelInfo {
  header: GgufHeader;
  sizeBytes: number;
  memory: ReturnType<typeof estimateMemoryBytes>;
  /** Bytes fetched to read the header. */
  fetchedBytes: number;
}

/** Size, header and memory estimate of a remote GGUF (Range requests; a server without Range support is refused, not downloaded whole). */
export async function probeRemoteModel(url: string, options: { token?: string; signal?: AbortSignal; contextTokens?: number } = {}): Promise<RemoteModelInfo> {
  let sizeBytes = NaN;
  let fetchedBytes = 0;
  const header = await readGgufHeaderWith(async (start, end) => {
    const res = await fetch(url, { headers: headersFor(options.token, { range: `bytes=${start}-${end - 1}` }), signal: options.signal ?? null, redirect: 'follow' });
    if (!res.ok) throw refused(res, url);
    if (res.status !== 206) {
      await res.body?.cancel();
      throw new AppError('UNSUPPORTED', `${url} does not answer Range requests, so its size and header cannot be read before downloading.`);
    }
    sizeBytes = Number(res.headers.get('content-range')?.split('/')[1] ?? NaN);
    const buf = Buffer.from(await res.arrayBuffer());
    fetchedBytes += buf.length;
    return buf;
  });
  return { header, sizeBytes, memory: estimateMemoryBytes(header, sizeBytes, options.contextTokens), fetchedBytes };
}
