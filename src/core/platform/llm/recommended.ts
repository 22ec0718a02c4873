import { freemem, totalmem } from 'node:os';
import type { ModelFit, RecommendedModel } from '../../../shared/contract';

interface Recommendation {
  name: string;
  purpose: string;
  stages: string[];
  downloadBytes: number;
}

/**
 * The model tiers (docs/design.md, Model tiers): tiny judges for yes/no stages, a middle
 * tier, a 4B reasoning model, a small coder and an embedding model. Sizes are Ollama's Q4 downloads.
 */
export const RECOMMENDED: readonly Recommendation[] = [
  { name: 'qwen3:0.6b', purpose: 'Yes/no judge for scope, precision and similarity', stages: ['scope', 'precision', 'similarity'], downloadBytes: 523_000_000 },
  { name: 'qwen3:1.7b', purpose: 'Routing, summaries and a stronger judge', stages: ['routing', 'summarize', 'chat'], downloadBytes: 1_400_000_000 },
  { name: 'qwen3:4b', purpose: 'Reasoning: task analysis and plans', stages: ['task_analysis', 'plan', 'chat'], downloadBytes: 2_500_000_000 },
  { name: 'qwen2.5-coder:3b', purpose: 'Coding: the execute stage', stages: ['execute'], downloadBytes: 1_900_000_000 },
  { name: 'nomic-embed-text', purpose: 'Embeddings for vector search', stages: ['embedding'], downloadBytes: 274_000_000 },
];

/** Loaded size: the weights plus room for the KV cache and runtime (about 20% + 0.5 GB). */
export function memoryNeeded(downloadBytes: number): number {
  return Math.round(downloadBytes * 1.2 + 500_000_000);
}

/** Fits when the model needs at most half the machine's memory, tight up to 80%, else too large. */
export function fitFor(memoryBytes: number, totalBytes: number): ModelFit {
  if (memoryBytes <= totalBytes * 0.5) return 'fits';
  if (memoryBytes <= totalBytes * 0.8) return 'tight';
  return 'too_large';
}

/** The recommended set with fit hints for this machine and which ones are installed. */
export function recommendedModels(installed: ReadonlySet<string>, totalBytes = totalmem()): RecommendedModel[] {
  return RECOMMENDED.map((r) => {
    const memoryBytes = memoryNeeded(r.downloadBytes);
    const isInstalled = installed.has(r.name) || (!r.name.includes(':') && installed.has(`${r.name}:latest`));
    return { ...r, memoryBytes, fit: fitFor(memoryBytes, totalBytes), installed: isInstalled };
  });
}

/** Another model that would be loaded at the same time, and its size when known (installed or recommended). */
export interface CoResident {
  name: string;
  /** Download (weights) size in bytes; undefined when unknown. */
  sizeBytes?: number;
}

function sameModel(a: string, b: string): boolean {
  const norm = (n: string) => (n.includes(':') ? n : `${n}:latest`);
  return norm(a) === norm(b);
}

/**
 * Add to each recommendation whether its memory is free now and whether it fits together with the
 * models assigned to other stages (the pipeline keeps them loaded side by side). A model of unknown
 * size is named but adds nothing.
 */
export function withAlongside(models: RecommendedModel[], assigned: readonly CoResident[], totalBytes = totalmem(), freeBytes = freemem()): RecommendedModel[] {
  return models.map((m) => {
    const others = assigned.filter((o) => !sameModel(o.name, m.name));
    const unique = others.filter((o, i) => others.findIndex((x) => sameModel(x.name, o.name)) === i);
    const memoryBytes = m.memoryBytes + unique.reduce((sum, o) => sum + (o.sizeBytes ? memoryNeeded(o.sizeBytes) : 0), 0);
    return { ...m, fitsFreeNow: m.memoryBytes <= freeBytes, alongside: { models: unique.map((o) => o.name), memoryBytes, fit: fitFor(memoryBytes, totalBytes) } };
  });
}
