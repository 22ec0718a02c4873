import type { IndexSummary } from './repos';
import type { RetrievalResult } from './retrieval';
import type { SolveOutcome } from './plansRuns';
import type { EnrichSummary } from './enrich';
import type { BootstrapSummary } from './training';
import type { ModelCheckResult, ModelSetupResult } from './models';
import type { ProgressNode, RunInfo, RunKind, RunStatus, RunSubjects } from './runInfo';

export * from './runInfo';

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
  index: { subject: RunSubjects['index']; result: IndexSummary };
  embed: { subject: RunSubjects['embed']; result: EmbedSummary };
  pull: { subject: RunSubjects['pull']; result: { model: string } };
  /** `repoPath`: the repository's root (an evaluation needs no registered repository). */
  eval: { subject: RunSubjects['eval']; result: { reportId: string; file: string } };
  /** One chat turn: retrieval, then the streamed answer (events chat/sources, chat/token, chat/done). */
  chat: { subject: RunSubjects['chat']; result: { conversationId: string; messageId: number } };
  /** One plan pass (task analysis → scope → plan); the plan is saved under the repository's plans/. */
  plan: { subject: RunSubjects['plan']; result: { planId: string; file: string } };
  /** Synthetic training pairs from a repository's history (`cra bootstrap`): the dataset folder and its counts. */
  bootstrap: { subject: RunSubjects['bootstrap']; result: BootstrapSummary };
  /** The summary tree of a repository (RAPTOR): summaries per level, how many the model wrote and how many were kept. */
  summarize: { subject: RunSubjects['summarize']; result: { levels: Array<{ level: number; summaries: number }>; summarized: number; reused: number } };
  /** One retrieval: task analysis → scope → precision → its product, the context package with its summary and decisions. */
  retrieve: { subject: RunSubjects['retrieve']; result: RetrievalResult };
  /** A solve run (orchestrated, or one implement pass of a plan); progress steps are parts → steps → passes. */
  /** `solveRunId`: the run resumed; absent for a new run, whose orchestrator id is its run id. */
  solve: { subject: RunSubjects['solve']; result: SolveOutcome };
  /** Per-file purpose, domain, module and concepts by the enrich model (`cra enrich`), optionally promoted into the index. */
  enrich: { subject: RunSubjects['enrich']; result: EnrichSummary };
  /** A training plan from the log's statistics (`cra train-plan`): the plan artifact file. */
  'train-plan': { subject: RunSubjects['train-plan']; result: { planId: string; file: string; stage: string } };
  /** Training files selected by a training plan (`cra curate-data`): the output folder and its counts. */
  'curate-data': { subject: RunSubjects['curate-data']; result: { dir: string; counts: Record<string, { train: number; test: number }> } };
  /** One-step model setup: downloads what the proposal lacks, then assigns every stage. */
  setup: { subject: RunSubjects['setup']; result: ModelSetupResult };
  /** A check of the assigned models on a repository's own history (`cra models check`). */
  'model-check': { subject: RunSubjects['model-check']; result: { results: ModelCheckResult[] } };
}

/** RunKinds and RunSubjects name the same kinds (a kind missing from either is a compile error here). */
type SameKinds<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : never;
const sameKinds: SameKinds<RunKinds, RunSubjects> = true;
void sameKinds;

/** What a run of kind K returns when it ends well. */
export type RunResult<K extends RunKind = RunKind> = RunKinds[K]['result'];

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
