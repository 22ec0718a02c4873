import { z } from 'zod';
import { request } from './define';
import type { RunStarted } from './runInfo';
import type { DatasetStage } from './stages';

/** Examples of a stage, and the yes / no among them (an execute example is neither). */
export interface LabelCounts {
  examples: number;
  yes: number;
  no: number;
}

/** What a bootstrap run did: the result of a `bootstrap` run. */
export interface BootstrapSummary {
  dir: string;
  /** Qualifying commits mined. */
  mined: number;
  /** Commits done in this run. */
  added: number;
  /** Commits already in the dataset (skipped). */
  skipped: number;
  counts: Record<DatasetStage, LabelCounts>;
  /** What mining saw (for the skip reasons). */
  considered: number;
  skippedByRule: Partial<Record<string, number>>;
  durationMs: number;
}

/** One dataset folder under `<data dir>/datasets`: a bootstrap dataset or a curated one. */
export interface DatasetSummary {
  /** The folder's name (unique under the datasets folder). */
  id: string;
  kind: 'bootstrap' | 'curated';
  dir: string;
  /** Bootstrap: the repository whose history it came from. */
  repoPath: string | null;
  /** Curated: the training plan file it was selected by. */
  plan: string | null;
  createdAt: string;
  updatedAt: string;
  /** Bootstrap: the commits done. */
  commits: number | null;
  /** Per stage (scope, precision_pass1, …): examples and yes/no; curated datasets count train and test together. */
  counts: Record<string, LabelCounts>;
  /** Curated: the held-out test examples per stage. */
  test: Record<string, number> | null;
  /** The JSONL files a sample can be read from, per stage. */
  files: Record<string, string>;
}

/** One example of a dataset, as the sample viewer shows it. */
export interface DatasetSample {
  /** 1-based line in its file. */
  line: number;
  messages: Array<{ role: string; content: string }>;
  meta: Record<string, unknown>;
}

/** Figures of one pipeline stage over the whole log. */
export interface StageFigures {
  stage: string;
  calls: number;
  errorRate: number;
  meanLatencyMs: number | null;
  decisions: number;
  judged: number;
  defaultDenyRate: number;
  yesRate: number;
}

/** Calls and judgments of one stage in one time bucket (a day or an hour, by the log's span). */
export interface StageBucket {
  /** The bucket's start, ISO. */
  bucket: string;
  stage: string;
  calls: number;
  judged: number;
  defaultDenied: number;
}

/** Latency of one model's calls. */
export interface ModelLatency {
  model: string;
  calls: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  maxMs: number;
}

/** The log analysis the Data page draws. */
export interface LogOverview {
  /** Raw databases read (the user-level one and each repository's that exists). */
  sources: number;
  stages: StageFigures[];
  /** `hour` when the log spans under two days, else `day`. */
  bucketSize: 'hour' | 'day';
  series: StageBucket[];
  latency: ModelLatency[];
  /** Task runs by kind and outcome (complete / partial / failed / cancelled / running / done). */
  runs: Array<{ mode: string; status: string; count: number }>;
}

/** How a task run ended, as the training statistics count it. */
export type RunOutcome = 'success' | 'partial' | 'failed' | 'cancelled' | 'running';

/** Deterministic figures of one stage: what the training plan is written from. */
export interface StageStatistics {
  stage: string;
  /** Logged model calls of the stage. */
  calls: number;
  errorRate: number;
  meanLatencyMs: number | null;
  /** Judged decisions (a model's yes / no or default-deny). */
  judged: number;
  /** Judged decisions that were default-denies (neither yes nor no). */
  defaultDenyRate: number;
  yesRate: number;
  /** Synthetic examples of the stage in bootstrap datasets. */
  synthetic: LabelCounts;
  /** Judged decisions by the outcome of the run they were made in. */
  outcomes: Record<RunOutcome | 'unknown', number>;
  /** Judged decisions in failed or partial runs / judged decisions in ended runs (null without any). */
  failedShare: number | null;
  /** Default-deny rate of judged decisions in failed or partial runs, and in successful ones. */
  defaultDenyInFailed: number | null;
  defaultDenyInSuccess: number | null;
}

/** Disagreement between two stages on the same items of the same runs. */
export interface StageDisagreement {
  from: string;
  to: string;
  /** Items the first stage kept that the second one judged. */
  items: number;
  /** Of those, the ones the second stage threw out. */
  disagreed: number;
  rate: number;
}

/** Everything `cra train-plan` measures before the model writes a word. */
export interface TrainingStatistics {
  generatedAt: string;
  log: { rawDatabases: number; calls: number; decisions: number; runs: number };
  datasets: Array<{ id: string; kind: DatasetSummary['kind']; examples: number }>;
  stages: StageStatistics[];
  disagreement: StageDisagreement[];
  /** Stages ordered weakest first by a fixed score (default-deny rate + failed share + disagreement + error rate), with their scores. */
  weakest: Array<{ stage: string; score: number; examples: number }>;
}

/** A training plan as the model wrote it (the engine checks a reply with its schema, lab/training/trainPlan.ts, which matches this type). */
export interface TrainingPlan {
  stage: string;
  rationale: string;
  data: {
    sources: Array<'logged' | 'synthetic'>;
    exclude_default_denied: boolean;
    exclude_failed_runs: boolean;
    balance_labels: boolean;
    max_examples: number;
    test_fraction: number;
    extra_stages: string[];
  };
  hyperparameters: { method: 'lora' | 'qlora' | 'full' | 'dpo'; epochs: number; learning_rate: number; batch_size: number; lora_rank?: number };
  target: { metric: string; current: number | null; goal: number };
}

/** The training plan artifact (the file a `train-plan` run writes): the statistics it was written from, the plan, who wrote it. */
export interface TrainingPlanArtifact {
  version: 1;
  id: string;
  createdAt: string;
  model: string;
  /** 2 when the first reply was invalid and the retry was not. */
  attempts: number;
  statistics: TrainingStatistics;
  plan: TrainingPlan;
}

/** One written file: its name, lines and SHA-256. */
export interface WrittenFile {
  file: string;
  lines: number;
  sha256: string;
}

/** Why examples were left out of a stage's files, counted. */
export interface DroppedCounts {
  /** The model's answer was neither yes nor no (default-denied). */
  defaultDenied: number;
  /** The call failed or its answer could not be read. */
  unparseable: number;
  /** From a run that failed (the plan excludes failed runs). */
  failedRun: number;
  /** The same prompt (system + user) seen before. */
  duplicate: number;
  /** Left out to balance yes and no. */
  balance: number;
  /** Over the plan's maximum. */
  cap: number;
}

/** What one stage of a curated dataset holds. */
export interface CuratedStage {
  train: LabelCounts;
  test: LabelCounts;
  /** Tasks (runs, commits) in each split: no task is in both. */
  tasks: { train: number; test: number };
  files: { train: WrittenFile; test: WrittenFile };
  dropped: DroppedCounts;
  /** Examples by where they came from, before filtering. */
  sources: { logged: number; synthetic: number };
  /** False when one label had no examples, so nothing could be balanced. */
  balanced: boolean;
}

/** The manifest of a curated dataset (`curated.json`, written by a `curate-data` run): the plan it came from, counts, and the hash of every file. */
export interface CuratedManifest {
  version: 1;
  kind: 'curated';
  createdAt: string;
  plan: { file: string; id: string; sha256: string; stage: string };
  stages: Record<string, CuratedStage>;
  /** Preference pairs (original vs adjusted plan, with the step outcome); null when the log holds no adjustments. */
  dpo: (WrittenFile & { pairs: number }) | null;
  /** Raw databases and bootstrap datasets read. */
  inputs: { rawDatabases: string[]; datasets: string[] };
  warnings: string[];
}

const datasetId = z.string().regex(/^[A-Za-z0-9][\w.-]{0,120}$/, 'a dataset folder name');

/** Training data requests (the Data page). */
export const trainingRequests = {
  'training/overview': request<{ datasets: DatasetSummary[]; log: LogOverview }>()(
    'Datasets under the data folder with their counts per stage and label balance, and the log analysis: calls and default-deny rate per stage over time, latency per model, runs by outcome.',
    () => z.object({}).strict(),
    {},
  ),
  'training/samples': request<{ total: number; samples: DatasetSample[] }>()(
    "Examples of one stage of a dataset (a curated dataset's train file), optionally only one label; paged.",
    () => z
      .object({
        dataset: datasetId,
        stage: z.string().regex(/^[a-z_0-9]{1,40}$/, 'a stage name'),
        label: z.enum(['yes', 'no']).optional(),
        offset: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(50).default(10),
      })
      .strict(),
    { dataset: 'bootstrap-app', stage: 'scope', offset: 0, limit: 10 },
  ),
  'training/export': request<{ dir: string; files: string[] }>()(
    'Copy a dataset (its JSONL files and manifest) into a new folder; the folder must not exist yet.',
    () => z.object({ dataset: datasetId, dest: z.string().min(1).max(4096) }).strict(),
    { dataset: 'bootstrap-app', dest: '/tmp/export' },
  ),
  'training/bootstrap': request<RunStarted<'bootstrap'>>()(
    'Start a bootstrap run (synthetic training pairs from a repository history; a `bootstrap` job).',
    () => z
      .object({
        repoPath: z.string().min(1).max(4096),
        commits: z.number().int().min(1).max(10_000).optional(),
        /** The dataset folder (default <data dir>/datasets/bootstrap-<repo name>); an existing dataset is resumed, a folder holding anything else refused. */
        out: z.string().min(1).max(4096).optional(),
        /** Start a new dataset in `out` even if it holds something else (its dataset files are replaced). */
        force: z.boolean().optional(),
      })
      .strict(),
    { repoPath: '/path/to/repo', commits: 20 },
  ),
  'training/trainPlan': request<RunStarted<'train-plan'>>()(
    'Start a train-plan run: statistics of the log and the bootstrap datasets, then the reasoning model writes a training plan (saved under training/plans, or to `out`: an existing file is refused unless `force`). Refused on an empty log.',
    () => z.object({ out: z.string().min(1).max(4096).optional(), force: z.boolean().optional() }).strict(),
    {},
  ),
  'training/curate': request<RunStarted<'curate-data'>>()(
    'Start a curate-data run: training files per stage selected by a training plan file (written into `out`, default datasets/curated-<plan id>).',
    () => z.object({ plan: z.string().min(1).max(4096), out: z.string().min(1).max(4096).optional() }).strict(),
    { plan: '/path/to/plan.json' },
  ),
} as const;
