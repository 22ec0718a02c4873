import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LabelCounts } from '../../../shared/contract/training';
import { readUserFile } from '../../platform/fs/userFile';

/** The manifest file of a curated dataset folder. */
export const CURATED_MANIFEST = 'curated.json';

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

/** The manifest of a curated dataset: the plan it came from, counts, and the hash of every file. */
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

/** Read a curated dataset's manifest. */
export function readCuratedManifest(dir: string): CuratedManifest {
  const file = join(dir, CURATED_MANIFEST);
  if (!existsSync(file)) throw new Error(`${dir} holds no curated dataset (no ${CURATED_MANIFEST}).`);
  let m: CuratedManifest;
  try {
    m = JSON.parse(readUserFile(file, { what: 'curated dataset manifest', maxBytes: 64 * 1024 * 1024, fix: 'remove the folder or pick another one' }).toString('utf8')) as CuratedManifest;
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error(`${file} is not JSON, so ${dir} is not a curated dataset.`);
    throw error;
  }
  if (m?.kind !== 'curated' || m.version !== 1) throw new Error(`${file} is not a curated dataset manifest this build reads.`);
  return m;
}
