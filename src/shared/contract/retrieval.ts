import { z } from 'zod';
import { event, request } from './define';
import type { Reason } from './reasons';

/** How much of a symbol the execute model sees: primary in full; supporting in full when it fits; type_context as a signature. */
export type SymbolRole = 'primary' | 'supporting' | 'type_context';

/** One piece of a file in a context package: a symbol in full or as its signature, or a whole file without symbols. */
export interface PackageItem {
  /** Absent for a whole file. */
  symbol?: { qualifiedName: string; kind: string; role: SymbolRole };
  detail: 'full' | 'signature' | 'file';
  startLine: number;
  endLine: number;
  text: string;
  /** Estimated tokens of the item as rendered. */
  tokens: number;
  /** Why it is here: relation, verdicts with P(yes), and `demoted` when its body did not fit. */
  reasons: Reason[];
  pYes?: number;
}

/** One file of a context package, with its tier, the reasons that brought it and its items in source order. */
export interface PackageFile {
  path: string;
  tier: number;
  reasons: Reason[];
  pYes?: number;
  items: PackageItem[];
  /** Estimated tokens of the file's header as rendered. */
  headerTokens: number;
}

/** Something a package left out, and why (`over-budget` with what it needed). */
export interface DroppedItem {
  path: string;
  symbol?: string;
  role?: SymbolRole;
  detail: PackageItem['detail'];
  reasons: Reason[];
}

/** The context an execute model gets: files and symbols with their reasons, within a budget. */
export interface ContextPackage {
  taskId: string;
  task: string;
  budget: { tokens: number; used: number; safetyMargin: number };
  files: PackageFile[];
  /** Import edges among the included files. */
  edges: Array<{ from: string; to: string }>;
  dropped: DroppedItem[];
  /** Groups of related included files (the similarity stage's output), when it ran and found any. */
  groups?: string[][];
}

/** What a `retrieve` run returns: the package in figures. */
export interface RetrievalSummary {
  taskId: string;
  files: number;
  symbols: Record<SymbolRole, number>;
  tokensUsed: number;
  budget: number;
  dropped: number;
  /** Binary judgments made (model calls of scope and precision). */
  judgments: number;
  /** Task analysis: enriched by the task_analysis model, or deterministic only (and why). */
  analysis: { enrichment: 'ok' | 'skipped' | 'failed'; reason?: string };
}

/** Requests of retrieval. */
export const retrievalRequests = {
  'retrieve/run': request<{ runId: string; taskId: string }>()(
    'Build the context package for a task: starts a `retrieve` run (task analysis → scope → precision → package) that emits retrieve/package',
    z.object({
      repoId: z.string().min(1),
      task: z.string().trim().min(1, { error: 'the task must not be empty: describe what should change' }).max(8000, { error: 'the task must be at most 8000 characters' }),
      /** Tokens; default: the config's [budget] context_window − reserved_tokens. */
      budget: z.number().int().positive({ error: 'the budget must be a whole number of tokens above 0' }).optional(),
      taskId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional(),
    }),
    { repoId: 'repo-1', task: 'Fix the tokenizer dropping newlines' },
  ),
} as const;

/** Events of a retrieve run. */
export const retrievalEvents = {
  'retrieve/package': event<{ runId: string; repoId: string; taskId: string; package: ContextPackage; summary: RetrievalSummary; markdown: string }>()('The finished context package of a retrieve run'),
} as const;
