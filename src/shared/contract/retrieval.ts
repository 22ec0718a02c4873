import { z } from 'zod';
import { event, request } from './define';
import { modelNameSchema } from './models';
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
  /** Preflight's info lines (e.g. enrichment not found: tier 4 skipped). */
  info?: string[];
  /** The stages in the order they ran (skipped: routing chose not to run it), with what each left. */
  stages?: Array<{ name: string; files: number; decisions: number; ms: number; skipped?: boolean }>;
  /** The server's exact token counts over every judgment of the run. */
  usage?: { calls: number; promptTokens: number; completionTokens: number; failed: number };
  /** The stage list and the budget config the run used. */
  config?: { stages: string[]; contextWindow?: number; reservedTokens?: number; safetyMargin: number; concurrency: number };
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
      /** The explicit stage list (routing, scope, similarity, precision, refilter); default scope, precision. */
      stages: z.array(z.string().min(1).max(40)).min(1, { error: 'the stage list must not be empty' }).max(10).optional(),
      /** The execute model's window and what it keeps back; the budget is their difference. Not with `budget`. */
      budgetConfig: z.object({ contextWindow: z.number().int().positive(), reservedTokens: z.number().int().min(0) }).strict().optional(),
      /** Files given with the task (a plan's): scope tier 0, never judged. */
      planFiles: z.array(z.string().min(1).max(1000)).max(200).optional(),
      /** The model of every retrieval stage for this run, instead of the config's. */
      model: modelNameSchema.optional(),
      /** The model server for this run, instead of the config's. */
      baseUrl: z.string().regex(/^https?:\/\/[^\s"'<>\\`]+$/i, { error: 'baseUrl must be an http:// or https:// address' }).optional(),
    }).refine((v) => v.budget === undefined || v.budgetConfig === undefined, { error: 'give either budget or budgetConfig, not both' }),
    { repoId: 'repo-1', task: 'Fix the tokenizer dropping newlines' },
  ),
} as const;

/** Events of a retrieve run. */
export const retrievalEvents = {
  'retrieve/package': event<{ runId: string; repoId: string; taskId: string; package: ContextPackage; summary: RetrievalSummary; markdown: string }>()('The finished context package of a retrieve run'),
} as const;
