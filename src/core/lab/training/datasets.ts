import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../../../shared/contract';
import type { DatasetSample, DatasetSummary, LabelCounts } from '../../../shared/contract/training';
import { DATASET_STAGES, readDatasetManifest } from './dataset';
import { CURATED_MANIFEST, readCuratedManifest } from './curatedManifest';
import { datasetsDir } from '../../platform/layout';

/** Every dataset folder under the data folder (bootstrap and curated), newest first; folders without a readable manifest are left out. */
export function listDatasets(dataDir: string): DatasetSummary[] {
  const root = datasetsDir(dataDir);
  if (!existsSync(root)) return [];
  const out: DatasetSummary[] = [];
  for (const id of readdirSync(root)) {
    const dir = join(root, id);
    try {
      out.push(summaryOf(id, dir));
    } catch {
      // Not a dataset (a half-written temporary folder, something the user put there).
    }
  }
  return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

function summaryOf(id: string, dir: string): DatasetSummary {
  if (existsSync(join(dir, CURATED_MANIFEST))) {
    const m = readCuratedManifest(dir);
    const counts: Record<string, LabelCounts> = {};
    const test: Record<string, number> = {};
    const files: Record<string, string> = {};
    for (const [stage, s] of Object.entries(m.stages)) {
      counts[stage] = { examples: s.train.examples + s.test.examples, yes: s.train.yes + s.test.yes, no: s.train.no + s.test.no };
      test[stage] = s.test.examples;
      files[stage] = s.files.train.file;
    }
    return { id, kind: 'curated', dir, repoPath: null, plan: m.plan.file, createdAt: m.createdAt, updatedAt: m.createdAt, commits: null, counts, test, files };
  }
  const m = readDatasetManifest(dir);
  return {
    id,
    kind: 'bootstrap',
    dir,
    repoPath: m.repoPath,
    plan: null,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
    commits: m.commits.length,
    counts: { ...m.counts },
    test: null,
    files: Object.fromEntries(DATASET_STAGES.map((s) => [s, m.files[s].file])),
  };
}

/** One dataset by its folder name, or a NOT_FOUND naming what exists. */
export function getDataset(dataDir: string, id: string): DatasetSummary {
  const dir = join(datasetsDir(dataDir), id);
  if (basename(id) !== id || !existsSync(dir)) throw new AppError('NOT_FOUND', `No dataset "${id}" under ${datasetsDir(dataDir)}; run cra bootstrap <repo> to make one.`);
  return summaryOf(id, dir);
}

/** Examples of one stage of a dataset (optionally one label), paged, with their line numbers. */
export function readSamples(dataDir: string, q: { dataset: string; stage: string; label?: 'yes' | 'no'; offset: number; limit: number }): { total: number; samples: DatasetSample[] } {
  const d = getDataset(dataDir, q.dataset);
  const file = d.files[q.stage];
  if (!file) throw new AppError('NOT_FOUND', `Dataset "${q.dataset}" has no stage "${q.stage}"; it has ${Object.keys(d.files).join(', ')}.`);
  const text = readFileSync(join(d.dir, file), 'utf8');
  const all: DatasetSample[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const x = JSON.parse(line) as { messages: DatasetSample['messages']; meta?: Record<string, unknown> };
    const meta = x.meta ?? {};
    const label = meta.label ?? (x.messages.at(-1)?.content.trim().toLowerCase() === 'yes' ? 'yes' : x.messages.at(-1)?.content.trim().toLowerCase() === 'no' ? 'no' : undefined);
    if (q.label && label !== q.label) return;
    all.push({ line: i + 1, messages: x.messages, meta });
  });
  return { total: all.length, samples: all.slice(q.offset, q.offset + q.limit) };
}

/**
 * Copy a dataset's files into `dest`, a folder that must not exist yet: written into a temporary
 * sibling folder, then renamed, so an interrupted export leaves nothing that looks finished.
 */
export function exportDataset(dataDir: string, id: string, dest: string): { dir: string; files: string[] } {
  const d = getDataset(dataDir, id);
  if (existsSync(dest)) throw new AppError('VALIDATION', `${dest} already exists; give a new folder to export into.`);
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = `${dest}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp);
  try {
    const files = readdirSync(d.dir).filter((f) => f.endsWith('.jsonl') || f.endsWith('.json'));
    for (const f of files) copyFileSync(join(d.dir, f), join(tmp, f));
    renameSync(tmp, dest);
    return { dir: dest, files: files.sort() };
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}
