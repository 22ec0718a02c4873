import { isAbsolute } from 'node:path';
import { AppError, type Handlers } from '../../../shared/contract';
import { checkModels, readChecks } from '../../lab/training/modelCheck';
import { repositoryRoot } from '../../platform/git';
import type { EngineContext } from '../engine';
import { listInstalled } from '../../platform/llm/modelManager';
import type { ModelServices } from '../../platform/llm/services';
import { planSetup, runSetup } from '../../platform/llm/setup';
import { assignments } from './models';

type SetupHandlers = Pick<Handlers, 'models/setupPlan' | 'models/setup' | 'models/check' | 'models/checks'>;

/**
 * The stages whose model cannot serve now: none assigned, or one the runtime does not have (not
 * among the built-in models; not installed in an Ollama that answers; every stage when Ollama does
 * not answer). An OpenAI-compatible server is taken at its word.
 */
export async function missingStages(llm: ModelServices): Promise<string[]> {
  let rows;
  try {
    rows = assignments(llm).rows;
  } catch {
    return [];
  }
  const provider = llm.target().provider;
  let has: (model: string) => boolean = () => true;
  if (provider === 'builtin') {
    const names = new Set(llm.modelStore.list().map((m) => m.name));
    has = (model) => names.has(model);
  } else if (provider === 'ollama') {
    const status = await llm.lifecycle.check();
    const installed = status.reachable ? new Set((await listInstalled(status.address).catch(() => [])).map((m) => m.name)) : new Set<string>();
    has = (model) => installed.has(model) || installed.has(`${model}:latest`);
  }
  return rows.filter((r) => !r.model || !has(r.model)).map((r) => r.stage);
}

/** One step to a working setup: the proposal, and the run that downloads and assigns it. */
export function createSetupHandlers(ctx: Pick<EngineContext, 'events' | 'policy' | 'ports' | 'runs'>, llm: ModelServices): SetupHandlers {
  return {
    'models/setupPlan': async () => planSetup(llm, await missingStages(llm)),
    'models/setup': async () => {
      const plan = await planSetup(llm, await missingStages(llm));
      const { runId } = ctx.runs.start('setup', 'Set up models', async (run) => {
        const result = await runSetup(llm, plan, {
          signal: run.signal,
          onProgress: (p) => run.progress({ phase: `${p.index + 1} of ${p.count}`, done: p.doneBytes, ...(p.totalBytes ? { total: p.totalBytes } : {}), message: p.model }),
        });
        ctx.events.emit('models/serverStatus', await llm.lifecycle.check());
        return result;
      }, { provider: plan.provider ?? 'none' });
      return ctx.runs.started(runId, 'setup');
    },
    'models/check': async ({ repoPath, stage, model, n }) => {
      if (ctx.policy.pathsFromForms && !isAbsolute(repoPath)) throw new AppError('VALIDATION', `"${repoPath}" is a relative path; give the repository's absolute path.`);
      // A typo fails the request, not a background job.
      const root = await repositoryRoot(repoPath);
      const { runId } = ctx.runs.start('model-check', `Check models on ${root}`, async (run) => {
        const results = await checkModels({ repoPath: root, dataDir: ctx.ports.dataDir, llm: llm.client, n, runId: run.runId, signal: run.signal, ...(stage ? { stages: [stage] } : {}), ...(model ? { model } : {}), onProgress: (p) => run.progress(p) });
        return { results };
      }, { repoPath: root });
      return ctx.runs.started(runId, 'model-check');
    },
    'models/checks': async ({ repoPath }) => ({ results: readChecks(ctx.ports.dataDir, repoPath) }),
  };
}
