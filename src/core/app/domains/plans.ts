import { AppError, type Handlers } from '../../../shared/contract';
import type { PlanArtifact } from '../../../shared/contract/plans';
import type { EngineContext } from '../engine';
import { gitHead } from '../../platform/git';
import type { ModelServices } from '../../platform/llm/services';
import { createPlan, listPlans, loadPlan, newPlanId, savePlan, readPlanValue, type PlanRepoView } from '../../features/plans';
import { RawDecisionLog, retrievalSettings } from '../../features/retrieval';

/** What plans use of the engine. */
type PlansDeps = Pick<EngineContext, 'repos' | 'runs' | 'ports'>;

/** Run `check` with a view of the repository's index (which files exist). */
function withRepoView<T>(ctx: PlansDeps, repoId: string, check: (repo: PlanRepoView) => T): T {
  return ctx.repos.use(repoId, (repo) => check({ hasFile: (path) => repo.kb.getFileByPath(path) !== null }));
}

type PlanHandlers = Pick<Handlers, 'plans/create' | 'plans/list' | 'plans/get' | 'plans/validate' | 'plans/save'>;

/**
 * Plans (issue #15, plan mode): `plans/create` starts a `plan` run — one atomic pass whose plan is
 * saved as `<dataDir>/repos/<id>/plans/<planId>.json` — and the saved plans are listed and read.
 */
export function createPlansHandlers(ctx: PlansDeps, llm: Pick<ModelServices, 'client' | 'loadUserConfig'>): PlanHandlers {
  return {
    'plans/create': async ({ repoId, task, judgeScope }) => {
      // NOT_FOUND / NOT_INDEXED before a run starts.
      const repo = ctx.repos.openIndexed(repoId);
      const { info } = repo;
      const { runId } = ctx.runs.start(
        'plan',
        `Plan · ${info.name}: ${task.slice(0, 60)}`,
        async ({ runId, signal, progress }) => {
          try {
            const kb = repo.kb;
            const commit = (await gitHead(info.path).catch(() => null)) ?? undefined;
            let done = 0;
            const artifact = await createPlan({
              kb,
              repoId: info.id,
              task,
              llm: llm.client,
              runId,
              signal,
              judgeScope,
              scope: retrievalSettings(llm.loadUserConfig().values).stageOptions.scope ?? {},
              // Judged scope decisions go to the repository's raw DB, as every retrieval decision does.
              ...(judgeScope ? { decisions: repo.table(RawDecisionLog) } : {}),
              ...(commit ? { commit } : {}),
              onPhase: (phase) => progress({ phase, done: done++ }),
            });
            return { planId: artifact.id, file: savePlan(ctx.ports.dataDir, artifact) };
          } finally {
            repo.dispose();
          }
        },
        { repoId: info.id },
      );
      return ctx.runs.started(runId, 'plan');
    },
    'plans/list': async ({ repoId }) => ctx.repos.use(repoId, ({ id }) => ({ plans: listPlans(ctx.ports.dataDir, id).plans })),
    'plans/get': async ({ repoId, planId }) => ctx.repos.use(repoId, ({ id }) => ({ plan: loadPlan(ctx.ports.dataDir, id, planId) })),
    'plans/validate': async ({ repoId, plan }) => {
      const reading = withRepoView(ctx, repoId, (repo) => readPlanValue(plan, repo));
      return { errors: reading.ok ? [] : reading.errors };
    },
    'plans/save': async ({ repoId, planId, plan }) => {
      const info = ctx.repos.use(repoId, (repo) => repo.info);
      const base = loadPlan(ctx.ports.dataDir, info.id, planId);
      const reading = withRepoView(ctx, repoId, (repo) => readPlanValue(plan, repo));
      if (!reading.ok) throw new AppError('VALIDATION', `The edited plan is not valid; fix these and save again:\n${reading.errors.map((e) => `- ${e}`).join('\n')}`, { details: { errors: reading.errors } });
      const latest = Math.max(base.version, ...listPlans(ctx.ports.dataDir, info.id).plans.filter((p) => p.task === base.task).map((p) => p.version));
      const artifact: PlanArtifact = { ...base, id: newPlanId(), createdAt: new Date().toISOString(), version: latest + 1, editedFrom: base.id, plan: reading.plan };
      savePlan(ctx.ports.dataDir, artifact);
      return { plan: artifact };
    },
  };
}
