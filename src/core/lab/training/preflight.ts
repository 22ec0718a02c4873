import { AppError } from '../../../shared/contract';
import type { DatasetSummary } from '../../../shared/contract/training';
import { listDatasets } from './datasets';
import { LogSources } from './logSources';

/** What a training mode found to work from. */
export interface TrainingInputs {
  sources: LogSources;
  datasets: DatasetSummary[];
}

/**
 * The training modes' preflight (docs/design.md, Preflight checks): the log (every raw DB of the data folder) must hold
 * model calls or retrieval decisions, or a bootstrap dataset must hold examples; otherwise a hard
 * error that says what produces data. The caller closes `sources`.
 */
export function trainingPreflight(dataDir: string): TrainingInputs {
  const sources = LogSources.open(dataDir);
  const datasets = listDatasets(dataDir).filter((d) => d.kind === 'bootstrap');
  const volume = sources.volume();
  const synthetic = datasets.reduce((n, d) => n + Object.values(d.counts).reduce((m, c) => m + c.examples, 0), 0);
  if (volume.calls + volume.decisions === 0 && synthetic === 0) {
    sources.close();
    throw new AppError(
      'NOT_FOUND',
      `No training data in ${dataDir}: the log holds no model calls or retrieval decisions (${sources.sources.length} raw database${sources.sources.length === 1 ? '' : 's'} read) and there is no bootstrap dataset. ` +
        'Training modes learn from prior runs: run tasks first (cra retrieve, cra plan, cra chat …), or make synthetic data from a repository history with cra bootstrap <repo>.',
    );
  }
  return { sources, datasets };
}
