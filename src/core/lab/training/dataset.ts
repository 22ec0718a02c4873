import { appendFileSync, existsSync, mkdirSync, readdirSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../../shared/contract';
import type { LabelCounts } from '../../../shared/contract/training';
import { readUserFile } from '../../platform/fs/userFile';

import { DATASET_STAGES, type DatasetStage } from '../../../shared/contract/stages';

/** The dataset's stage files: the contract's list. */
export { DATASET_STAGES, type DatasetStage };

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
  let manifest: DatasetManifest;
  try {
    manifest = JSON.parse(readUserFile(file, { what: 'dataset manifest', maxBytes: MAX_MANIFEST_BYTES, fix: 'pick another --out folder' }).toString('utf8')) as DatasetManifest;
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error(`${file} is not JSON, so ${dir} is not a bootstrap dataset; pick another --out folder.`);
    throw error;
  }
  if (manifest?.source !== 'synthetic') throw new Error(`${file} is not a bootstrap dataset manifest; pick another --out folder.`);
  if (manifest.version !== 2) throw new Error(`${dir} was written by an older cra bootstrap (manifest version ${String(manifest.version)}); delete the folder or pick another --out folder.`);
  return manifest;
}

/** The largest manifest read (a manifest lists every commit: 64 MiB is far beyond any history). */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
/** The files a dataset consists of: what `--force` replaces. */
const datasetFiles = () => [...DATASET_STAGES.map((s) => `${s}.jsonl`), MANIFEST];

/** Write a file whole or not at all: a temporary sibling, then renamed over the name (a link there is replaced, not followed). */
function replaceFile(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/**
 * A dataset folder written commit by commit. A commit's lines are appended, then the manifest is
 * replaced (write + rename) with the new sizes; on open, each file is cut back to the size the
 * manifest recorded, so a commit interrupted between the two leaves no line behind. Only files
 * the manifest records are ever cut: a folder without a manifest is used only when it is empty.
 */
export class BootstrapDataset {
  private constructor(
    readonly dir: string,
    readonly manifest: DatasetManifest,
  ) {}

  /**
   * Open the dataset in `dir` (creating it), cutting each file back to its last recorded size. A
   * folder that holds something but no dataset of this repository is refused, naming what is in
   * it; `force` starts a new dataset there instead, replacing the dataset's own files (the stage
   * files and manifest.json) and leaving anything else alone.
   */
  static open(dir: string, repoPath: string, options: { force?: boolean } = {}): BootstrapDataset {
    mkdirSync(dir, { recursive: true });
    const existing = existsSync(join(dir, MANIFEST)) && !options.force ? readDatasetManifest(dir) : null;
    if (existing && existing.repoPath !== repoPath) throw new Error(`${dir} holds a dataset of ${existing.repoPath}, not ${repoPath}; pick another --out folder, or --force to replace it.`);
    if (!existing) {
      const entries = readdirSync(dir);
      if (entries.length && !options.force) {
        const shown = entries.sort().slice(0, 5).join(', ') + (entries.length > 5 ? `, and ${entries.length - 5} more` : '');
        throw new AppError('VALIDATION', `${dir} is not empty (${shown}) and holds no bootstrap dataset (no manifest.json); nothing was changed. Give an empty or new --out folder, or --force to replace its dataset files (${datasetFiles().join(', ')}).`);
      }
      const now = new Date().toISOString();
      const files = Object.fromEntries(DATASET_STAGES.map((s) => [s, { file: `${s}.jsonl`, lines: 0, bytes: 0 }])) as DatasetManifest['files'];
      const manifest: DatasetManifest = { version: 2, source: 'synthetic', repoPath, family: 'chat', createdAt: now, updatedAt: now, files, counts: emptyCounts(), commits: [] };
      // The manifest first: a run stopped before its first commit leaves a dataset that the next run resumes.
      replaceFile(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
      for (const stage of DATASET_STAGES) {
        if (options.force) replaceFile(join(dir, files[stage].file), '');
        else writeFileSync(join(dir, files[stage].file), '', { flag: 'wx' });
      }
      return new BootstrapDataset(dir, manifest);
    }
    for (const stage of DATASET_STAGES) {
      const entry = existing.files[stage];
      const path = join(dir, entry.file);
      if (!existsSync(path)) writeFileSync(path, '', { flag: 'wx' });
      const size = statSync(path).size;
      if (size < entry.bytes) throw new AppError('VALIDATION', `${path} is shorter (${size} bytes) than ${join(dir, MANIFEST)} records (${entry.bytes}): it was changed outside cra bootstrap; nothing was changed. Delete the folder, or --force to start the dataset again.`);
      if (size > entry.bytes) truncateSync(path, entry.bytes);
    }
    return new BootstrapDataset(dir, existing);
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
    replaceFile(join(this.dir, MANIFEST), `${JSON.stringify(this.manifest, null, 2)}\n`);
    return done;
  }
}
