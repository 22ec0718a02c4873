import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The stages a dataset has a JSONL file for. */
export const DATASET_STAGES = ['scope', 'precision', 'execute'] as const;
/** One of {@link DATASET_STAGES}. */
export type DatasetStage = (typeof DATASET_STAGES)[number];

/** One training pair in chat format (what common fine-tuning tools read), with where it came from. */
export interface ChatExample {
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  /** Not part of the chat format: commit, subject and label, for splitting and balancing later. */
  meta: { source: 'synthetic'; commit: string; subject: string; label: string; tier?: number };
}

/** One commit that is done: its pairs are in the files, counted here. */
export interface DatasetCommit {
  sha: string;
  parent: string;
  task: string;
  gold: string[];
  scope: { yes: number; no: number };
  precision: { yes: number; no: number };
  execute: number;
}

/** The manifest of a bootstrap dataset (manifest.json beside the JSONL files). */
export interface DatasetManifest {
  version: 1;
  source: 'synthetic';
  repoPath: string;
  /** The prompt form of the judgment pairs. */
  family: 'chat';
  createdAt: string;
  updatedAt: string;
  /** Lines and bytes of each stage's file as of the last finished commit: a resume cuts anything after. */
  files: Record<DatasetStage, { file: string; lines: number; bytes: number }>;
  counts: { scope: { yes: number; no: number }; precision: { yes: number; no: number }; execute: number };
  commits: DatasetCommit[];
}

const MANIFEST = 'manifest.json';

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
    const file = join(dir, MANIFEST);
    let manifest: DatasetManifest;
    if (existsSync(file)) {
      manifest = JSON.parse(readFileSync(file, 'utf8')) as DatasetManifest;
      if (manifest.version !== 1 || manifest.source !== 'synthetic') throw new Error(`${file} is not a bootstrap dataset manifest; pick another --out folder.`);
      if (manifest.repoPath !== repoPath) throw new Error(`${dir} holds a dataset of ${manifest.repoPath}, not ${repoPath}; pick another --out folder.`);
    } else {
      const now = new Date().toISOString();
      const files = Object.fromEntries(DATASET_STAGES.map((s) => [s, { file: `${s}.jsonl`, lines: 0, bytes: 0 }])) as DatasetManifest['files'];
      manifest = { version: 1, source: 'synthetic', repoPath, family: 'chat', createdAt: now, updatedAt: now, files, counts: { scope: { yes: 0, no: 0 }, precision: { yes: 0, no: 0 }, execute: 0 }, commits: [] };
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
  add(commit: Omit<DatasetCommit, 'scope' | 'precision' | 'execute'>, pairs: Record<DatasetStage, ChatExample[]>): DatasetCommit {
    const count = (xs: ChatExample[]) => ({ yes: xs.filter((x) => x.meta.label === 'yes').length, no: xs.filter((x) => x.meta.label === 'no').length });
    const done: DatasetCommit = { ...commit, scope: count(pairs.scope), precision: count(pairs.precision), execute: pairs.execute.length };
    for (const stage of DATASET_STAGES) {
      const text = pairs[stage].map((p) => `${JSON.stringify(p)}\n`).join('');
      const entry = this.manifest.files[stage];
      appendFileSync(join(this.dir, entry.file), text);
      entry.lines += pairs[stage].length;
      entry.bytes += Buffer.byteLength(text);
    }
    const c = this.manifest.counts;
    c.scope.yes += done.scope.yes;
    c.scope.no += done.scope.no;
    c.precision.yes += done.precision.yes;
    c.precision.no += done.precision.no;
    c.execute += done.execute;
    this.manifest.commits.push(done);
    this.manifest.updatedAt = new Date().toISOString();
    const file = join(this.dir, MANIFEST);
    writeFileSync(`${file}.tmp`, `${JSON.stringify(this.manifest, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
    return done;
  }
}
