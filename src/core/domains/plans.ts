import { AppError, type Handlers } from '../../shared/contract';
import { openRawDatabase } from '../db/raw';
import type { PlanArtifact } from '../../shared/contract/plans';
import type { EngineContext } from '../engine';
import { gitHead } from '../git';
import { KnowledgeBase } from '../kb/knowledgeBase';
import type { ModelServices } from '../llm/services';
import { createPlan } from '../orchestrator/plan';
import { listPlans, loadPlan, newPlanId, savePlan } from '../orchestrator/planStore';
import { readPlanValue, type PlanRepoView } from '../orchestrator/planValidate';
import { RawDecisionLog } from '../retrieval/decisionLog';
import { retrievalSettings } from '../retrieval/settings';
import { openIndexedRepo } from '../repos/indexed';
import { repoPaths } from '../layout';

/** Run `check` with a view of the repository's index (which files exist). */
function withRepoView<T>(ctx: EngineContext, repoId: string, check: (repo: PlanRepoView) => T): T {
  const { info, curatedFile } = openIndexedRepo(ctx, { repoId });
  const kb = KnowledgeBase.open(curatedFile, info.id);
  try {
    return check({ hasFile: (path) => kb.getFileByPath(path) !== null });
  } finally {
    kb.close();
  }
}

type PlanHandlers = Pick<Handlers, 'plans/create' | 'plans/list' | 'plans/get' | 'plans/validate' | 'plans/save'>;

/**
 * Plans (issue #15, plan mode): `plans/create` starts a `plan` run — one atomic pass whose plan is
 * saved as `<dataDir>/repos/<id>/plans/<planId>.json` — and the saved plans are listed and read.
 */
export function createPlansHandlers(ctx: EngineContext, llm: Pick<ModelServices, 'client' | 'loadUserConfig'>): PlanHandlers {
  return {
    'plans/create': async ({ repoId, task, judgeScope }) => {
      // NOT_FOUND / NOT_INDEXED before a run starts.
      const { info, curatedFile } = openIndexedRepo(ctx, { repoId });
      const { runId } = ctx.runs.start(
        'plan',
        `Plan · ${info.name}: ${task.slice(0, 60)}`,
        async ({ runId, signal, progress }) => {
          const kb = KnowledgeBase.open(curatedFile, info.id);
          // Judged scope decisions go to the repository's raw DB, as every retrieval decision does.
          const raw = judgeScope ? openRawDatabase(repoPaths(ctx.ports.dataDir, info.id).raw) : undefined;
          try {
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
              ...(raw ? { decisions: new RawDecisionLog(raw) } : {}),
              ...(commit ? { commit } : {}),
              onPhase: (phase) => progress({ phase, done: done++ }),
            });
            return { planId: artifact.id, file: savePlan(ctx.ports.dataDir, artifact) };
          } finally {
            raw?.close();
            kb.close();
          }
        },
        { repoId: info.id },
      );
      return { runId };
    },
    'plans/list': async ({ repoId }) => {
      const { info } = openIndexedRepo(ctx, { repoId });
      return { plans: listPlans(ctx.ports.dataDir, info.id).plans };
    },
    'plans/get': async ({ repoId, planId }) => {
      const { info } = openIndexedRepo(ctx, { repoId });
      return { plan: loadPlan(ctx.ports.dataDir, info.id, planId) };
    },
    'plans/validate': async ({ repoId, plan }) => {
      const reading = withRepoView(ctx, repoId, (repo) => readPlanValue(plan, repo));
      return { errors: reading.ok ? [] : reading.errors };
    },
    'plans/save': async ({ repoId, planId, plan }) => {
      const { info } = openIndexedRepo(ctx, { repoId });
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
