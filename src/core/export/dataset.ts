import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { LabelCounts } from '../../shared/contract/data';

/**
 * The stages a dataset has a JSONL file for, named as the pipeline logs its calls (model_calls.stage),
 * so synthetic and logged examples of one stage land in one training file.
 */
export const DATASET_STAGES = ['scope', 'precision_pass1', 'precision_pass2', 'execute'] as const;
/** One of {@link DATASET_STAGES}. */
export type DatasetStage = (typeof DATASET_STAGES)[number];

/** One chat message of a training example. */
export const chatMessageSchema = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string().min(1) }).strict();

/**
 * The chat format common fine-tuning tools read (one JSON object per line): a system turn, a user
 * turn, and the assistant's answer, in that order.
 */
export const chatLineSchema = z
  .object({ messages: z.tuple([chatMessageSchema.extend({ role: z.literal('system') }), chatMessageSchema.extend({ role: z.literal('user') }), chatMessageSchema.extend({ role: z.literal('assistant') })]) })
  .passthrough();

/** One training pair in chat format (what common fine-tuning tools read), with where it came from. */
export interface ChatExample {
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  /** Not part of the chat format: commit, subject and label, for splitting and balancing later. */
  meta: { source: 'synthetic'; commit: string; subject: string; label: string; tier?: number; reason?: string };
}

export type { LabelCounts };

/** One commit that is done: its pairs are in the files, counted here. */
export interface DatasetCommit {
  sha: string;
  parent: string;
  task: string;
  gold: string[];
  /** Files the changed files import whose names the diff uses (labelled yes in scope). */
  neighbours: string[];
  counts: Record<DatasetStage, LabelCounts>;
}

/** The manifest of a bootstrap dataset (manifest.json beside the JSONL files). */
export interface DatasetManifest {
  version: 2;
  source: 'synthetic';
  repoPath: string;
  /** The prompt form of the judgment pairs. */
  family: 'chat';
  createdAt: string;
  updatedAt: string;
  /** Lines and bytes of each stage's file as of the last finished commit: a resume cuts anything after. */
  files: Record<DatasetStage, { file: string; lines: number; bytes: number }>;
  counts: Record<DatasetStage, LabelCounts>;
  commits: DatasetCommit[];
}

const MANIFEST = 'manifest.json';

/** Zero counts for every stage. */
export const emptyCounts = (): Record<DatasetStage, LabelCounts> => Object.fromEntries(DATASET_STAGES.map((s) => [s, { examples: 0, yes: 0, no: 0 }])) as Record<DatasetStage, LabelCounts>;

/** Count a list of examples by label. */
export function countLabels(xs: ReadonlyArray<{ meta: { label: string } }>): LabelCounts {
  return { examples: xs.length, yes: xs.filter((x) => x.meta.label === 'yes').length, no: xs.filter((x) => x.meta.label === 'no').length };
}

/** Read a dataset's manifest (throws a clear error for a folder that holds none, or an older one). */
export function readDatasetManifest(dir: string): DatasetManifest {
  const file = join(dir, MANIFEST);
  if (!existsSync(file)) throw new Error(`${dir} holds no dataset (no manifest.json); run cra bootstrap first.`);
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as DatasetManifest;
  if (manifest.source !== 'synthetic') throw new Error(`${file} is not a bootstrap dataset manifest; pick another --out folder.`);
  if (manifest.version !== 2) throw new Error(`${dir} was written by an older cra bootstrap (manifest version ${String(manifest.version)}); delete the folder or pick another --out folder.`);
  return manifest;
}

/**
 * A dataset folder written commit by commit. A commit's lines are appended, then the manifest is
 * replaced (write + rename) with the new sizes; on open, each file is cut back to the size the
 * manifest recorded, so a commit interrupted between the two leaves no line behind.
 */
export class BootstrapDataset {
  private constructor(
    readonly dir: string,
    readonly manifest: DatasetManifest,
  ) {}

  /** Open the dataset in `dir` (creating it), cutting each file back to its last recorded size. */
  static open(dir: string, repoPath: string): BootstrapDataset {
    mkdirSync(dir, { recursive: true });
    let manifest: DatasetManifest;
    if (existsSync(join(dir, MANIFEST))) {
      manifest = readDatasetManifest(dir);
      if (manifest.repoPath !== repoPath) throw new Error(`${dir} holds a dataset of ${manifest.repoPath}, not ${repoPath}; pick another --out folder.`);
    } else {
      const now = new Date().toISOString();
      const files = Object.fromEntries(DATASET_STAGES.map((s) => [s, { file: `${s}.jsonl`, lines: 0, bytes: 0 }])) as DatasetManifest['files'];
      manifest = { version: 2, source: 'synthetic', repoPath, family: 'chat', createdAt: now, updatedAt: now, files, counts: emptyCounts(), commits: [] };
    }
    for (const stage of DATASET_STAGES) {
      const path = join(dir, manifest.files[stage].file);
      if (!existsSync(path)) writeFileSync(path, '');
      else if (statSync(path).size !== manifest.files[stage].bytes) truncateSync(path, manifest.files[stage].bytes);
    }
    return new BootstrapDataset(dir, manifest);
  }

  /** Whether a commit's pairs are already in the dataset. */
  has(sha: string): boolean {
    return this.manifest.commits.some((c) => c.sha === sha);
  }

  /** Append one commit's pairs, then record it in the manifest. */
  add(commit: Omit<DatasetCommit, 'counts'>, pairs: Record<DatasetStage, ChatExample[]>): DatasetCommit {
    const done: DatasetCommit = { ...commit, counts: emptyCounts() };
    for (const stage of DATASET_STAGES) {
      const text = pairs[stage].map((p) => `${JSON.stringify(p)}\n`).join('');
      const entry = this.manifest.files[stage];
      appendFileSync(join(this.dir, entry.file), text);
      entry.lines += pairs[stage].length;
      entry.bytes += Buffer.byteLength(text);
      done.counts[stage] = countLabels(pairs[stage]);
      const total = this.manifest.counts[stage];
      total.examples += done.counts[stage].examples;
      total.yes += done.counts[stage].yes;
      total.no += done.counts[stage].no;
    }
    this.manifest.commits.push(done);
    this.manifest.updatedAt = new Date().toISOString();
    const file = join(this.dir, MANIFEST);
    writeFileSync(`${file}.tmp`, `${JSON.stringify(this.manifest, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
    return done;
  }
}
