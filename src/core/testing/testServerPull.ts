/** /api/pull of the loopback model test server: per-layer NDJSON progress, resume and one-shot faults (test support only). */
import type { ServerResponse } from 'node:http';
import { delay, waitForClose } from './testServerUtil';
import type { TestModel, TestRegistryEntry, TestServerScript } from './testServerTypes';

/** The parts of the server a pull touches. */
export interface PullState {
  script: TestServerScript;
  registry: Map<string, TestRegistryEntry>;
  installed: Map<string, TestModel>;
  partial: Map<string, number>;
}

/**
 * Stream a pull: a manifest line, then per layer `{status, digest, total, completed}` lines from
 * where an earlier, interrupted pull of that layer got to, then verify/write/success. The layer
 * progress persists when the client drops the connection, as Ollama keeps partial blobs.
 */
export async function handlePull(state: PullState, name: string, res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  const line = (obj: unknown) => {
    if (!res.destroyed) res.write(`${JSON.stringify(obj)}\n`);
  };
  line({ status: 'pulling manifest' });
  const entry = state.registry.get(name);
  if (!entry) return void res.end(`${JSON.stringify({ error: 'pull model manifest: file does not exist' })}\n`);
  const pull = state.script.pull;
  pull.onStart?.();
  let sent = 0;
  for (const layer of entry.layers) {
    let done = Math.min(state.partial.get(layer.digest) ?? 0, layer.size);
    const status = `pulling ${layer.digest.slice(7, 19)}`;
    line({ status, digest: layer.digest, total: layer.size, completed: done });
    while (done < layer.size) {
      await delay(pull.delayMs);
      if (res.destroyed) return;
      const step = Math.min(pull.chunkBytes, layer.size - done);
      done += step;
      sent += step;
      state.partial.set(layer.digest, done);
      line({ status, digest: layer.digest, total: layer.size, completed: done });
      if (pull.interruptAfterBytes !== undefined && sent >= pull.interruptAfterBytes) {
        pull.interruptAfterBytes = undefined;
        return void res.destroy();
      }
      if (pull.stallAfterBytes !== undefined && sent >= pull.stallAfterBytes) {
        pull.stallAfterBytes = undefined;
        pull.onStall?.();
        return waitForClose(res);
      }
      if (pull.diskFullAfterBytes !== undefined && sent >= pull.diskFullAfterBytes) {
        pull.diskFullAfterBytes = undefined;
        return void res.end(`${JSON.stringify({ error: `write /root/.ollama/models/blobs/sha256-${layer.digest.slice(7)}-partial: no space left on device` })}\n`);
      }
    }
  }
  line({ status: 'verifying sha256 digest' });
  line({ status: 'writing manifest' });
  state.installed.set(name, { ...entry.model });
  for (const layer of entry.layers) state.partial.delete(layer.digest);
  res.end(`${JSON.stringify({ status: 'success' })}\n`);
}
