/**
 * The curated models of the built-in runtime, per stage (docs/design.md, Model tiers:
 * 0.6B judges, 1.7B for finer judgments and summaries, 4B for plans and chat, a coder for code, a
 * GGUF embedding model), all Q4_K_M from Hugging Face. Sizes and memory are not written here: they
 * are read from each file's GGUF header with a Range request before downloading (download.ts).
 * The addresses were not reachable from the development machine; the tests use a loopback server.
 */
import type { Stage } from '../../config/schema';

/** One curated model. */
export interface CatalogModel {
  /** The name it gets in the model store and the config. */
  name: string;
  url: string;
  /** The stages it is proposed for. */
  stages: Stage[];
  /** Gated on Hugging Face (needs a token). */
  gated: boolean;
}

const HUGGING_FACE = 'https://huggingface.co';
const hf = (repo: string, file: string) => `${HUGGING_FACE}/${repo}/resolve/main/${file}`;

/** The curated list. */
export const BUILTIN_CATALOG: readonly CatalogModel[] = [
  { name: 'qwen3-0.6b-q4_k_m', url: hf('unsloth/Qwen3-0.6B-GGUF', 'Qwen3-0.6B-Q4_K_M.gguf'), stages: ['scope', 'similarity', 'routing', 'rerank'], gated: false },
  { name: 'qwen3-1.7b-q4_k_m', url: hf('unsloth/Qwen3-1.7B-GGUF', 'Qwen3-1.7B-Q4_K_M.gguf'), stages: ['precision', 'task_analysis', 'summarize', 'enrich'], gated: false },
  { name: 'qwen3-4b-q4_k_m', url: hf('unsloth/Qwen3-4B-GGUF', 'Qwen3-4B-Q4_K_M.gguf'), stages: ['plan', 'chat'], gated: false },
  { name: 'qwen2.5-coder-3b-q4_k_m', url: hf('Qwen/Qwen2.5-Coder-3B-Instruct-GGUF', 'qwen2.5-coder-3b-instruct-q4_k_m.gguf'), stages: ['execute'], gated: false },
  { name: 'nomic-embed-text-v1.5-q4_k_m', url: hf('nomic-ai/nomic-embed-text-v1.5-GGUF', 'nomic-embed-text-v1.5.Q4_K_M.gguf'), stages: ['embedding'], gated: false },
];

/**
 * A catalog address as this machine reaches it: under $HF_ENDPOINT when set (a Hugging Face
 * mirror, the variable Hugging Face's own tools read; the tests point it at a loopback server).
 */
export function catalogUrl(url: string, env: NodeJS.ProcessEnv = process.env): string {
  const mirror = env.HF_ENDPOINT?.trim().replace(/\/+$/, '');
  return mirror && url.startsWith(`${HUGGING_FACE}/`) ? `${mirror}${url.slice(HUGGING_FACE.length)}` : url;
}

/** The curated models proposed for a stage. */
export function catalogFor(stage: Stage): CatalogModel[] {
  return BUILTIN_CATALOG.filter((m) => m.stages.includes(stage));
}
