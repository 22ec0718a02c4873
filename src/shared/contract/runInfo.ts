/**
 * The record of a run (what `run/list`, `run/started` and every request that starts a run return)
 * and what a client needs to follow one. Kept apart from runs.ts, whose `RunKinds` names each
 * kind's result type from the domains' files: those files declare their start requests with
 * {@link RunStarted} from here, so neither imports the other in a circle.
 */

/**
 * What each kind of long-running job works on (its subject). runs.ts's `RunKinds` adds each
 * kind's result; a kind is one entry in both (a compile-time check there keeps their keys equal).
 */
export interface RunSubjects {
  index: { repoId: string };
  embed: { repoId: string };
  pull: { model: string };
  /** `repoPath`: the repository's root (an evaluation needs no registered repository). */
  eval: { repoPath: string };
  /** `question`: what was asked (a window that attaches to the run shows it). */
  chat: { repoId: string; conversationId: string; question: string };
  plan: { repoId: string };
  bootstrap: { repoPath: string };
  summarize: { repoId: string };
  /** `task`: the task text (a window that attaches to the run shows it). */
  retrieve: { repoId: string; task: string };
  /** `solveRunId`: the run resumed; absent for a new run, whose orchestrator id is its run id. */
  solve: { repoId: string; solveRunId?: string };
  enrich: { repoId: string };
  'train-plan': { dataDir: string };
  'curate-data': { plan: string };
  setup: { provider: string };
  'model-check': { repoPath: string };
}

/** A kind of run. */
export type RunKind = keyof RunSubjects;
/** What a run of kind K works on. */
export type RunSubject<K extends RunKind = RunKind> = RunSubjects[K];

/** Lifecycle of a long-running job. */
export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** Status of one node of a progress tree. */
export type ProgressNodeStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

/**
 * One node of a run's progress tree: a phase, a part of a plan, a step of a part, a pass of a step.
 * Nodes are matched by `id` among their siblings (see `mergeProgressSteps`, runs.ts).
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

/**
 * A run event's place in its run's event log (RunRegistry): 1, 2, 3… per run, stamped by the
 * registry on every event that carries a `runId`. A client that attached to a run (`run/attach`)
 * drops a live event whose seq it already has.
 */
export interface Sequenced {
  seq?: number;
}

/**
 * What a request that starts a long job returns: the run's record, as `run/list` and `run/started`
 * have it. Attach to it (`run/attach`) for its events so far and wait for `run/finished`.
 */
export interface RunStarted<K extends RunKind = RunKind> {
  run: RunInfo<K>;
  /** The same as `run.runId`. Deprecated, kept for one release so callers that read `runId` keep working: read `run`. */
  runId: string;
}

/** One event of a run's log: the contract's event key, its payload (with `seq`), its sequence number. */
export interface RunLogEntry {
  seq: number;
  event: string;
  payload: unknown;
}

/** What `run/attach` answers: the run as it is now and its events after the seq asked for. */
export interface RunAttachment {
  run: RunInfo;
  /** The run's events after `afterSeq`, oldest first; live ones with a greater seq follow as events. */
  events: RunLogEntry[];
  /** The seq of the run's last event so far (0: none). */
  lastSeq: number;
  /** The oldest seq the log still has: events before it were dropped by the log's bounds (a gap when > afterSeq + 1). */
  firstSeq: number;
  /** The run's product once it ended well (`RunResult` of its kind). */
  result?: unknown;
}
