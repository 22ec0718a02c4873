import { isAbsolute } from 'node:path';
import { AppError, type Handlers } from '../../../shared/contract';
import type { EngineContext } from '../engine';
import { exportDataset, listDatasets, readSamples } from '../../lab/training/datasets';
import { LogSources } from '../../lab/training/logSources';
import { startBootstrap, startCurate, startTrainPlan } from '../../lab/training/trainingRuns';
import type { ModelServices } from '../../platform/llm/services';
import { repositoryRoot } from '../../platform/git';
import { expandHome } from '../../knowledge/repos/service';

/** A path typed into the app: `~` expanded; a relative one refused (the engine's folder means nothing there). */
function appPath(input: string, what: string): string {
  const expanded = expandHome(input.trim());
  if (!isAbsolute(expanded)) throw new AppError('VALIDATION', `"${input}" is a relative path; give the ${what}'s absolute path (for example /home/you/${what === 'repository' ? 'project' : 'export'}).`);
  return expanded;
}

type DataHandlers = Pick<Handlers, 'training/overview' | 'training/samples' | 'training/export' | 'training/bootstrap' | 'training/trainPlan' | 'training/curate'>;

/** Training data (the Data page): datasets under the data folder, their samples and export, the log analysis, bootstrap runs. */
export function createTrainingHandlers(ctx: Pick<EngineContext, 'policy' | 'ports' | 'runs'>, llm: Pick<ModelServices, 'client'>): DataHandlers {
  const dataDir = ctx.ports.dataDir;
  const isApp = ctx.policy.pathsFromForms;
  return {
    'training/overview': async () => {
      const sources = LogSources.open(dataDir);
      try {
        return { datasets: listDatasets(dataDir), log: sources.overview() };
      } finally {
        sources.close();
      }
    },
    'training/samples': async (q) => readSamples(dataDir, q),
    'training/export': async ({ dataset, dest }) => exportDataset(dataDir, dataset, isApp ? appPath(dest, 'folder') : dest),
    'training/bootstrap': async ({ repoPath, commits, out, force }) => {
      // A typo fails the request, not a background job.
      const root = await repositoryRoot(isApp ? appPath(repoPath, 'repository') : repoPath);
      const folder = out === undefined ? undefined : isApp ? appPath(out, 'folder') : out;
      return ctx.runs.started(startBootstrap(ctx.runs, { dataDir, repoPath: root, ...(commits ? { commits } : {}), ...(folder ? { out: folder } : {}), ...(force ? { force } : {}) }).runId, 'bootstrap');
    },
    'training/trainPlan': async ({ out, force }) => ctx.runs.started(startTrainPlan(ctx.runs, llm.client, { dataDir, ...(out ? { out: isApp ? appPath(out, 'file') : out } : {}), ...(force ? { force } : {}) }).runId, 'train-plan'),
    'training/curate': async ({ plan, out }) => ctx.runs.started(startCurate(ctx.runs, { dataDir, planFile: isApp ? appPath(plan, 'file') : plan, ...(out ? { out: isApp ? appPath(out, 'folder') : out } : {}) }).runId, 'curate-data'),
  };
}
