import { z } from 'zod';
import { request } from './define';
import type { RunStarted } from './runInfo';
import { EVAL_JUDGES, EVAL_SEARCH_MODES } from '../vocabulary';
import { budgetSchema, oneOf } from './inputs';

/** The search mode an evaluation measures. */
export type EvalSearchMode = (typeof EVAL_SEARCH_MODES)[number];
/** A judge of the pipeline evaluation. */
export type EvalJudgeKind = (typeof EVAL_JUDGES)[number];

/** One evaluation task: a task text, the commit it starts from, and the files that answer it. */
export interface EvalTask {
  id: string;
  task: string;
  /** The commit the repository is indexed at (the mined commit's parent). */
  parent: string;
  /** Repository-relative paths of the files the task should find. */
  gold: string[];
  /** The mined commit, when the task came from history; a tasks file's fix commit, when it names one. */
  commit?: string;
  date?: string;
}

/**
 * A ranking method the evaluation compares: `search` is the product search in keyword mode,
 * `search-hybrid` / `search-semantic` the same search in those modes (vectors of the default embedder).
 * `bm25` is whole-file BM25 over every code file; `bm25-source` whole-file BM25 over the source
 * files of the task's language only (no tests, docs or configuration); `bm25-standard` the usual
 * baseline of code retrieval papers over those same files (identifier splitting, path tokens, k1
 * 1.2, b 0.75); a `…-source` search is the search's ranking restricted to those same files.
 * `search-functions` is the search's function-level ranking (units `path::Qualified.name`, or the
 * file for module-level changes) scored against the task's gold functions (`goldFunctions`).
 */
export type EvalMethod =
  | 'search'
  | 'search-hybrid'
  | 'search-semantic'
  | 'bm25'
  | 'pipeline'
  | 'search-source'
  | 'search-hybrid-source'
  | 'search-semantic-source'
  | 'bm25-source'
  | 'bm25-standard'
  | 'search-functions';

/** How one search method compares with one reference at one k (recall@k means over the tasks). */
export interface EvalComparison {
  method: EvalMethod;
  reference: EvalMethod;
  k: number;
  /** recall@k of the method and of the reference. */
  methodRecall: number;
  referenceRecall: number;
  /** True when the method's recall@k is strictly higher. */
  beats: boolean;
}

/** Quality figures of one method over one task or the mean over all tasks. */
export interface EvalScores {
  /** k → fraction of gold files in the top k. */
  recallAt: Record<string, number>;
  /** k → 1 when every gold file is in the top k, else 0 (means over tasks). */
  allGoldAt: Record<string, number>;
  /** Reciprocal rank of the first gold file (0 when none is ranked). */
  mrr: number;
}

/** What one method did for one task. */
export interface EvalMethodResult extends EvalScores {
  /** The top of its ranking (at least max k paths). */
  ranked: string[];
  /** 1-based rank of each gold file, null when it was not ranked. */
  goldRanks: Record<string, number | null>;
  /** Milliseconds the ranking took (for BM25 including its index update). */
  ms: number;
}

/** One task's outcome. */
export interface EvalTaskResult extends EvalTask {
  /** Milliseconds the incremental index of the parent took. */
  indexMs: number;
  /** Milliseconds the incremental embedding of new chunks took (hybrid and semantic runs only). */
  embedMs?: number;
  /** Files the incremental index parsed for this task (all of them for the first task only). */
  parsedFiles?: number;
  /**
   * Source files of the task's language the source-only reference could rank (at the parent). When
   * it is no more than k, that reference ranks every one of them: its recall@k is 1 by construction.
   */
  sourceCandidates?: number;
  results: Partial<Record<EvalMethod, EvalMethodResult>>;
  /**
   * The functions and classes around the lines the task's commit changed, at the parent
   * (`path::Qualified.name`; the file's path for module-level changes): tasks with a commit only.
   */
  goldFunctions?: string[];
  /** The retrieval pipeline's outcome (`cra eval --pipeline`). */
  pipeline?: EvalPipelineResult;
  /** The evidence a chat turn would send for the task's text (`cra eval --chat-evidence`). */
  chatEvidence?: EvalChatEvidenceResult;
  /** Set when the task could not be run (bad parent, indexing failure). */
  error?: string;
}

/** Where one gold file got to in the pipeline. */
export interface EvalPipelineGold {
  /** Its scope tier when it was a candidate (within the cap), else null. */
  tier: number | null;
  /** Whether it is in the final package. */
  inPackage: boolean;
  /**
   * Why it was not a candidate (over the cap, or which tier would have reached it and how: search
   * rank, co-change count, second-degree import), or, a candidate, why it is not in the package.
   */
  miss?: string[];
}

/** The retrieval pipeline on one task: recall of its candidates and package, its judgments and cost. */
export interface EvalPipelineResult {
  /** yes (keep every candidate), oracle (yes exactly for gold), model (the configured model). */
  judge: EvalJudgeKind;
  /** Scope candidates within the cap (seeds included), and those past the cap. */
  candidates: number;
  overCap: number;
  /** Fraction of gold files among the candidates / in the package. */
  candidateRecall: number;
  packageRecall: number;
  /** Share of the task's gold functions and classes the package holds (function level; mined tasks only). */
  functionRecall?: number;
  /** Binary judgments made, in all and of the scope stage. */
  judgments: number;
  scopeJudgments: number;
  packageFiles: number;
  packageTokens: number;
  budget: number;
  ms: number;
  gold: Record<string, EvalPipelineGold>;
  /** Oracle only: gold files no symbol of which overlaps the change (the nearest symbol stood in). */
  nearestSymbol?: string[];
  error?: string;
}

/** The pipeline's figures over the run's tasks. */
export interface EvalPipelineSummary {
  judge: EvalJudgeKind;
  budget: number;
  tasks: number;
  candidateRecallMean: number;
  packageRecallMean: number;
  /** Mean function-level package recall over the tasks that have it (mined tasks). */
  functionRecallMean?: number;
  judgmentsMedian: number;
  scopeJudgmentsMedian: number;
  candidatesMedian: number;
  packageTokensMean: number;
  msMean: number;
  /** The search's recall@10 over the same tasks, for comparison. */
  searchRecallAt10Mean?: number;
}

/**
 * Where a gold file got to in a chat turn's evidence assembly: `sent` (in the evidence), else the
 * step that lost it — `retrieval` (neither a search hit taken nor reached by graph expansion),
 * `expansion` (a neighbour the walk found but its node cap, and the excerpts past it, left out),
 * `fetch` (a node past node_text_fetch_top_n, or without a body), `budget` (fetched or packed, but
 * no room in the evidence budget) —
 * or `not-indexed` (the index of the parent has no such file).
 */
export type EvalChatEvidenceStage = 'sent' | 'retrieval' | 'expansion' | 'fetch' | 'budget' | 'not-indexed';

/** The evidence a chat turn would send before its answer call, for one task's text as the question. */
export interface EvalChatEvidenceResult {
  /** The route taken (chosen, no router call) and the intent detected from the text. */
  mode: string;
  intent: string;
  /** Every gold file is in the evidence; the fraction of gold files that are. */
  allGold: boolean;
  goldFraction: number;
  /** Every gold file is in the raw evidence that fits the budget (what a turn sends without the condensing call). */
  allGoldRaw?: boolean;
  /** Files in the evidence, its estimated tokens, and what the budget step did. */
  files: number;
  evidenceTokens: number;
  budget: 'fits' | 'summarized' | 'trimmed';
  budgetTokens: number;
  /** Search hits taken as seeds, nodes after expansion, pieces fetched (bodies and excerpts). */
  hits: number;
  nodes: number;
  fetched: number;
  /** Pieces of the evidence sent as excerpts (a few lines) rather than bodies. */
  excerpts?: number;
  /** `excerpt`: the gold file is in the evidence only as an excerpt. `hitRank`: its rank among the search hits taken. */
  gold: Record<string, { stage: EvalChatEvidenceStage; hitRank: number | null; excerpt?: boolean }>;
  ms: number;
  error?: string;
}

/** The chat evidence figures over the run's tasks. */
export interface EvalChatEvidenceSummary {
  mode: string;
  pipeline: string;
  budgetTokens: number;
  tasks: number;
  /** Tasks whose evidence could not be assembled (counted as without their gold files). */
  errors: number;
  /** Fraction of tasks with every gold file in the evidence; mean fraction of gold files in it. */
  allGoldRate: number;
  goldFractionMean: number;
  /** Fraction of tasks with every gold file in the raw evidence that fits the budget (no condensing). */
  allGoldRawRate?: number;
  filesMedian: number;
  evidenceTokensMean: number;
  msMean: number;
  /** Gold files lost, by the step that lost them. */
  lost: Partial<Record<EvalChatEvidenceStage, number>>;
  /** Gold files in the evidence only as an excerpt (a few lines, not the body). */
  goldAsExcerpt?: number;
  /** Tasks whose evidence was over the budget: the turn would make a summarize call before its answer. */
  condensed?: number;
  /** The search's recall@10 over the same tasks, for comparison. */
  searchRecallAt10Mean?: number;
}

/** A whole evaluation run, as stored in `<dataDir>/eval/<id>.json`. */
export interface EvalReport {
  id: string;
  createdAt: string;
  repoPath: string;
  /** The repository's HEAD when the evaluation ran. */
  head: string;
  source: { kind: 'history'; commits: number; since?: string; considered: number; skipped: Record<string, number> } | { kind: 'file'; file: string };
  ks: number[];
  methods: EvalMethod[];
  summary: Partial<Record<EvalMethod, EvalScores>>;
  timing: { totalMs: number; indexMsMean: number; embedMsMean?: number; methodMsMean: Partial<Record<EvalMethod, number>> };
  tasks: EvalTaskResult[];
  notes: string[];
  /** Which reference each search beats at recall@5 and @10 (absent in reports stored before it existed). */
  comparisons?: EvalComparison[];
  /** The retrieval pipeline's figures (`cra eval --pipeline`). */
  pipeline?: EvalPipelineSummary;
  /** The chat turn's evidence figures (`cra eval --chat-evidence`). */
  chatEvidence?: EvalChatEvidenceSummary;
}

/** One line of the report list. */
export interface EvalReportSummary {
  id: string;
  createdAt: string;
  repoPath: string;
  taskCount: number;
  ks: number[];
  summary: Partial<Record<EvalMethod, EvalScores>>;
}

/** Retrieval-quality evaluation on a repository's history. */
export const evalRequests = {
  'eval/list': request<EvalReportSummary[]>()('Stored evaluation reports, newest first.', () => z.object({}).strict(), {}),
  'eval/get': request<EvalReport>()(
    'One stored evaluation report with its per-task results and misses.',
    () => z.object({ id: z.string().regex(/^[\w.-]{1,100}$/, 'a report id: letters, digits, dot, dash, underscore') }).strict(),
    { id: 'report-does-not-exist' },
  ),
  'eval/start': request<RunStarted<'eval'>>()(
    'Mine tasks from a repository history (or read them from a tasks file) and measure the search against BM25 references; optionally the retrieval pipeline and the chat evidence on each task; progress per task.',
    () => z
      .object({
        repoPath: z.string().min(1).max(4096),
        /** The most recent N qualifying commits (default 50). */
        commits: z.number().int().min(1).max(1000).optional(),
        /** Only commits after this date (anything `git log --since` accepts). */
        since: z.string().max(100).optional(),
        /** Cut-offs of recall@k and all-gold@k (default 1, 5, 10); taken sorted, without repeats. */
        ks: z
          .array(z.number().int().min(1).max(100))
          .min(1)
          .max(10)
          .transform((ks) => [...new Set(ks)].sort((a, b) => a - b))
          .optional(),
        /** A JSON-lines file of tasks `{id, task, parent, gold}` on the engine's machine (absolute path), instead of mining the history. */
        tasksFile: z.string().min(1).max(4096).optional(),
        /** The search mode measured (default keyword); hybrid and semantic embed the index before each task. */
        mode: oneOf('a search mode', EVAL_SEARCH_MODES).optional(),
        /** Also run the retrieval pipeline (scope, precision, package) on each task. */
        pipeline: z
          .object({
            judge: oneOf('a judge', EVAL_JUDGES).default('model'),
            /** Default: the config's [budget]. */
            budget: budgetSchema.optional(),
            /** Judgments at once (model judge). */
            concurrency: z.number().int().min(1).max(64).optional(),
            /** Scope settings; default the stage's (shared/defaults.ts). */
            scope: z.object({ maxCandidates: z.number().int().min(1).optional(), searchSeeds: z.number().int().min(0).optional(), minCoChange: z.number().int().min(1).optional() }).strict().optional(),
            /** Precision caps; default the stage's. */
            precision: z.object({ maxSymbols: z.number().int().min(1).optional(), maxSymbolsPerFile: z.number().int().min(1).optional() }).strict().optional(),
          })
          .strict()
          .optional(),
        /** Also measure the evidence a chat turn would send for each task (default pipeline and budget; route chosen from the mode, no model call). */
        chatEvidence: z.boolean().optional(),
      })
      .strict(),
    { repoPath: '/path/that/does/not/exist' },
  ),
} as const;
