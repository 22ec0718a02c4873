import type { IndexSummary } from './repos';
import type { RetrievalSummary } from './retrieval';
import type { SolveOutcome } from './solve';
import type { EnrichSummary } from './enrich';
import type { BootstrapSummary } from './data';
import type { ModelCheckResult, ModelSetupResult } from './models';

/** What one embedding run did (the result of a run of kind `embed`). */
export interface EmbedSummary {
  embedderId: string;
  /** Chunks in the index. */
  chunks: number;
  /** Chunks embedded in this run (new or changed text). */
  embedded: number;
  /** Chunks that got the vector of a deleted chunk with the same text instead (no model call). */
  reused: number;
  /** Vectors dropped because their chunk is gone. */
  removed: number;
  durationMs: number;
}

/**
 * Every kind of long-running job, with what it works on (its subject) and what it returns when it
 * ends well. `RunRegistry.start` is typed by this map, so a run with the wrong subject or result is
 * a compile error, and a listener narrows `RunInfo`/`RunFinished` by `kind` instead of guessing a
 * repository from a title or casting `result`. A new kind (plan, solve, chat) is one entry here.
 */
export interface RunKinds {
  index: { subject: { repoId: string }; result: IndexSummary };
  embed: { subject: { repoId: string }; result: EmbedSummary };
  pull: { subject: { model: string }; result: { model: string } };
  /** `repoPath`: the repository's root (an evaluation needs no registered repository). */
  eval: { subject: { repoPath: string }; result: { reportId: string; file: string } };
  /** One chat turn: retrieval, then the streamed answer (events chat/sources, chat/token, chat/done). */
  chat: { subject: { repoId: string; conversationId: string }; result: { conversationId: string; messageId: number } };
  /** One plan pass (task analysis → scope → plan); the plan is saved under the repository's plans/. */
  plan: { subject: { repoId: string }; result: { planId: string; file: string } };
  /** Synthetic training pairs from a repository's history (`cra bootstrap`): the dataset folder and its counts. */
  bootstrap: { subject: { repoPath: string }; result: BootstrapSummary };
  /** The summary tree of a repository (RAPTOR): summaries per level, how many the model wrote and how many were kept. */
  summarize: { subject: { repoId: string }; result: { levels: Array<{ level: number; summaries: number }>; summarized: number; reused: number } };
  /** One retrieval: task analysis → scope → precision → context package (event retrieve/package). */
  retrieve: { subject: { repoId: string }; result: RetrievalSummary };
  /** A solve run (orchestrated, or one implement pass of a plan); progress steps are parts → steps → passes. */
  /** `solveRunId`: the run resumed; absent for a new run, whose orchestrator id is its run id. */
  solve: { subject: { repoId: string; solveRunId?: string }; result: SolveOutcome };
  /** Per-file purpose, domain, module and concepts by the enrich model (`cra enrich`), optionally promoted into the index. */
  enrich: { subject: { repoId: string }; result: EnrichSummary };
  /** A training plan from the log's statistics (`cra train-plan`): the plan artifact file. */
  'train-plan': { subject: { dataDir: string }; result: { planId: string; file: string; stage: string } };
  /** Training files selected by a training plan (`cra curate-data`): the output folder and its counts. */
  'curate-data': { subject: { plan: string }; result: { dir: string; counts: Record<string, { train: number; test: number }> } };
  /** One-step model setup: downloads what the proposal lacks, then assigns every stage. */
  setup: { subject: { provider: string }; result: ModelSetupResult };
  /** A check of the assigned models on a repository's own history (`cra models check`). */
  'model-check': { subject: { repoPath: string }; result: { results: ModelCheckResult[] } };
}

/** A kind of run. */
export type RunKind = keyof RunKinds;
/** What a run of kind K works on. */
export type RunSubject<K extends RunKind = RunKind> = RunKinds[K]['subject'];
/** What a run of kind K returns when it ends well. */
export type RunResult<K extends RunKind = RunKind> = RunKinds[K]['result'];

/** Lifecycle of a long-running job. */
export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** Status of one node of a progress tree. */
export type ProgressNodeStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

/**
 * One node of a run's progress tree: a phase, a part of a plan, a step of a part, a pass of a step.
 * Nodes are matched by `id` among their siblings (see {@link mergeProgressSteps}).
 */
export interface ProgressNode {
  id: string;
  label: string;
  status: ProgressNodeStatus;
  done?: number;
  total?: number;
  children?: ProgressNode[];
}

/** A progress report of a run; `done`/`total` drive a determinate bar when total is known. */
export interface RunProgress<K extends RunKind = RunKind> {
  runId: string;
  kind: K;
  phase: string;
  done: number;
  total?: number;
  /** Items per second in the current phase, when meaningful. */
  rate?: number;
  /** Estimated seconds left in the current phase. */
  etaSeconds?: number;
  message?: string;
  /**
   * Nested progress (parts → steps → passes). An update may carry only the nodes that changed: they
   * are merged into the tree the run has so far, and every event carries the whole merged tree.
   */
  steps?: ProgressNode[];
}

interface RunInfoOf<K extends RunKind> {
  runId: string;
  kind: K;
  /** What the run works on: a repository id, a model name, a repository path. */
  subject: RunSubject<K>;
  title: string;
  status: RunStatus;
  startedAt: string;
  finishedAt?: string;
  /** Latest progress, when the job reported any. */
  progress?: RunProgress<K>;
  error?: { code: string; message: string };
}

/** A long-running job (index, pull, eval, later chat and solve runs) as the job list shows it; narrowed by `kind`. */
export type RunInfo<K extends RunKind = RunKind> = { [P in K]: RunInfoOf<P> }[K];

interface RunFinishedOf<K extends RunKind> {
  runId: string;
  kind: K;
  status: Exclude<RunStatus, 'running'>;
  error?: { code: string; message: string };
  /** Present when `status` is done. */
  result?: RunResult<K>;
}

/** The last word of a run; narrowed by `kind`. */
export type RunFinished<K extends RunKind = RunKind> = { [P in K]: RunFinishedOf<P> }[K];

/** A run as the raw log keeps it (`task_runs`): the Logs page shows it above the run's calls. */
export interface RunRecord {
  runId: string;
  kind: string;
  title: string | null;
  /** The subject it was started with (`RunKinds`), as recorded. */
  subject: Record<string, unknown> | null;
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  error: { code: string; message: string } | null;
}

/** The repository a run works on, when its kind has one (index, embed). */
export function runRepoId(run: Pick<RunInfo, 'kind' | 'subject'>): string | null {
  return 'repoId' in run.subject ? run.subject.repoId : null;
}

/**
 * Merge an update of a progress tree into the tree so far: a node whose id is known among its
 * siblings is updated (its children merged the same way), a new one is appended, and nodes the
 * update does not name are kept. So a job may send only the step that changed.
 */
export function mergeProgressSteps(known: readonly ProgressNode[] | undefined, update: readonly ProgressNode[] | undefined): ProgressNode[] | undefined {
  if (!update) return known ? [...known] : undefined;
  const merged = [...(known ?? [])];
  for (const node of update) {
    const at = merged.findIndex((n) => n.id === node.id);
    if (at < 0) {
      merged.push(node);
      continue;
    }
    const previous = merged[at] as ProgressNode;
    const children = mergeProgressSteps(previous.children, node.children);
    merged[at] = { ...previous, ...node, ...(children ? { children } : {}) };
  }
  return merged;
}
