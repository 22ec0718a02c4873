/**
 * The real GGUF model the built-in runtime's tests load: ../shared/models/stories260K.gguf beside
 * the checkout (a 1.2 MB trained llama-architecture base model; see its README), or $CRA_TEST_GGUF.
 * Use it for mechanics only (loading, grammar, next-token probabilities, prefix reuse, cancellation,
 * the GGUF header): it does not follow instructions, so never assert on what it says.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBuiltinProvider, type BuiltinProvider } from '../platform/llm/builtin/builtinProvider';
import { ModelStore } from '../platform/llm/builtin/modelStore';
import { LlamaRuntime } from '../platform/llm/builtin/runtime';

/** The file's sha256 and size (its README). */
export const REAL_GGUF_SHA256 = '270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d';
export const REAL_GGUF_BYTES = 1_185_376;
/** The name the tests give it in a model store. */
export const REAL_GGUF_NAME = 'stories260k';

/** Where the real GGUF is; a clear error when it is missing. */
export function realGgufPath(): string {
  const path = process.env.CRA_TEST_GGUF ?? join(__dirname, '..', '..', '..', '..', 'shared', 'models', 'stories260K.gguf');
  if (!existsSync(path)) throw new Error(`The real test model is missing at ${path}: put stories260K.gguf there (see shared/models/README.md) or set CRA_TEST_GGUF.`);
  return path;
}

/** A built-in runtime on one CPU thread (two spinning threads on a busy 2-core machine are ~100× slower) with the real GGUF in a temporary store. */
export async function realGgufRuntime(options: { idleMs?: number } = {}): Promise<{ runtime: LlamaRuntime; store: ModelStore; provider: BuiltinProvider; dataDir: string; dispose(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-gguf-'));
  const store = new ModelStore(dataDir);
  await store.addByPath(REAL_GGUF_NAME, realGgufPath());
  const runtime = new LlamaRuntime({ threads: 1, gpu: false, idleMs: options.idleMs ?? 60_000 });
  const provider = createBuiltinProvider(runtime, (name) => store.resolvePath(name));
  return {
    runtime,
    store,
    provider,
    dataDir,
    dispose: async () => {
      await runtime.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
