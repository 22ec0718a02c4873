import { resolve } from 'node:path';
import type { LlmClient } from '../../platform/llm/client';
import type { RunRegistry } from '../../platform/runtime/runs';
import { bootstrapDataset } from './bootstrap';
import { curateData } from './curate';
import type { CuratedManifest } from './curatedManifest';
import { trainingPreflight } from './preflight';
import { loadTrainingPlan, refuseExistingPlanFile, saveTrainingPlan, writeTrainingPlan, type TrainingPlanArtifact } from './trainPlan';
import { trainingStatistics } from './trainStats';
import { defaultPlanFile } from '../../platform/layout';

/** Progress of a training run, as its phase/done/total. */
type Progress = (p: { done: number; total: number; message: string }) => void;

/** Start a `bootstrap` run (the CLI and the Data page start it the same way). */
export function startBootstrap(runs: RunRegistry, input: { dataDir: string; repoPath: string; commits?: number; out?: string; force?: boolean }) {
  const repoPath = resolve(input.repoPath);
  return runs.start(
    'bootstrap',
    `Bootstrap training data from ${repoPath}`,
    async ({ signal, progress }) => {
      const summary = await bootstrapDataset({
        repoPath,
        dataDir: input.dataDir,
        ...(input.out ? { out: resolve(input.out) } : {}),
        ...(input.force ? { force: true } : {}),
        ...(input.commits ? { commits: input.commits } : {}),
        signal,
        onProgress: (p) => progress({ phase: 'commits', done: p.done, total: p.total, message: p.message }),
      });
      return summary;
    },
    { repoPath },
  );
}

/**
 * Start a `train-plan` run: the preflight (refuses an empty log), the deterministic statistics, then
 * the reasoning model writes the plan; saved to `out` or `<data dir>/training/plans/<id>.json`.
 * An existing `out` file is refused (before the model is asked) unless `force`. `onPlan` sees the
 * artifact (the CLI prints it).
 */
export function startTrainPlan(runs: RunRegistry, llm: LlmClient, input: { dataDir: string; out?: string; force?: boolean; onPlan?: (a: TrainingPlanArtifact, file: string) => void }) {
  // Refused before a run starts: an existing --out file or an empty log is the caller's problem, not a failed run.
  if (input.out && !input.force) refuseExistingPlanFile(resolve(input.out));
  const inputs = trainingPreflight(input.dataDir);
  return runs.start(
    'train-plan',
    'Training plan from the log',
    async ({ runId, signal, progress }) => {
      try {
        progress({ phase: 'statistics', done: 0, total: 2 });
        const stats = trainingStatistics(inputs.sources, inputs.datasets);
        progress({ phase: 'plan', done: 1, total: 2 });
        const artifact = await writeTrainingPlan({ stats, llm, runId, signal });
        const file = saveTrainingPlan(artifact, input.out ? resolve(input.out) : defaultPlanFile(input.dataDir, artifact.id), { force: input.force === true });
        input.onPlan?.(artifact, file);
        return { planId: artifact.id, file, stage: artifact.plan.stage };
      } finally {
        inputs.sources.close();
      }
    },
    { dataDir: input.dataDir },
  );
}

/** Start a `curate-data` run from a plan file (read and checked before the run starts). */
export function startCurate(runs: RunRegistry, input: { dataDir: string; planFile: string; out?: string; onProgress?: Progress; onDone?: (dir: string, m: CuratedManifest) => void }) {
  const planFile = resolve(input.planFile);
  const plan = loadTrainingPlan(planFile);
  const inputs = trainingPreflight(input.dataDir);
  return runs.start(
    'curate-data',
    `Curate training data by ${planFile}`,
    async ({ signal, progress }) => {
      try {
        const { dir, manifest } = curateData({
          dataDir: input.dataDir,
          plan: { ...plan, file: planFile },
          sources: inputs.sources,
          datasets: inputs.datasets,
          ...(input.out ? { out: resolve(input.out) } : {}),
          signal,
          onProgress: (p) => {
            progress({ phase: 'stages', done: p.done, total: p.total, message: p.message });
            input.onProgress?.(p);
          },
        });
        input.onDone?.(dir, manifest);
        return { dir, counts: Object.fromEntries(Object.entries(manifest.stages).map(([s, x]) => [s, { train: x.train.examples, test: x.test.examples }])) };
      } finally {
        inputs.sources.close();
      }
    },
    { plan: planFile },
  );
}
