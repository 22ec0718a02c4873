import { randomUUID } from 'node:crypto';
import { AppError, type Handlers } from '../../shared/contract';
import type { RetrievalStageName, RetrievalSummary, SymbolRole } from '../../shared/contract/retrieval';
import { openRawDatabase } from '../db/raw';
import type { EngineContext } from '../engine';
import { confinePath } from '../fs/confine';
import { KnowledgeBase } from '../kb/knowledgeBase';
import { noServerHint } from '../llm/ollamaLifecycle';
import type { ModelServices } from '../llm/services';
import { RawCallLog } from '../logs/callLog';
import { openIndexedRepo } from '../repos/indexed';
import { repoPaths } from '../repos/registry';
import { RawDecisionLog } from '../retrieval/decisionLog';
import { buildPackage, effectiveBudget, renderMarkdown } from '../retrieval/package';
import { runPipeline, type RetrievalStage } from '../retrieval/stage';
import { PrecisionStage } from '../retrieval/stages/precision';
import { ScopeStage } from '../retrieval/stages/scope';
import { analyzeTask } from '../retrieval/taskAnalysis';
import { readFileSync } from 'node:fs';
import { RetrieveWatch } from './retrieveWatch';

/** The stage of each name a retrieve run can be given. */
const STAGES: Record<RetrievalStageName, () => RetrievalStage> = { scope: () => new ScopeStage(), precision: () => new PrecisionStage() };

/**
 * Retrieval as a `retrieve` run (issue #13): task analysis (enriched only when a model is
 * assigned to task_analysis), scope, precision, then the context package within the budget. Model
 * calls and every decision go to the repository's raw DB; the package comes as retrieve/package.
 */
export function createRetrieveHandlers(ctx: EngineContext, llm: Pick<ModelServices, 'client' | 'loadUserConfig' | 'router' | 'target'>): Pick<Handlers, 'retrieve/run'> {
  return {
    'retrieve/run': async ({ repoId, task, budget, taskId, stages = ['scope', 'precision'], contextWindow, reservedTokens }) => {
      const { info, curatedFile } = openIndexedRepo(ctx, { repoId });
      // Before a run starts: a missing [models] section is the router's CONFIG_MISSING (run `cra init`).
      const router = llm.router();
      router.resolve('reasoning', 'scope');
      const config = llm.loadUserConfig().values;
      const budgetTokens = budget ?? effectiveBudget({ contextWindow: contextWindow ?? config.budget.context_window, reservedTokens: reservedTokens ?? config.budget.reserved_tokens });
      const enrich = config.models?.overrides.task_analysis !== undefined;
      const id = taskId ?? `t-${randomUUID()}`;
      const { runId } = ctx.runs.start(
        'retrieve',
        `Retrieve · ${info.name}: ${task.slice(0, 60)}`,
        async ({ runId, signal, progress }): Promise<RetrievalSummary> => {
          const kb = KnowledgeBase.open(curatedFile, info.id);
          const raw = openRawDatabase(repoPaths(ctx.ports.dataDir, info.id).raw);
          // The watch pushes each judgment as it is logged and reports per-stage progress.
          const watch = new RetrieveWatch({ runId, taskId: id, stages, emit: (j) => ctx.events.emit('retrieve/judgment', j), progress });
          const log = watch.wrap(new RawCallLog(raw));
          try {
            const record = await analyzeTask(task, kb, { id, runId, log, signal, ...(enrich ? { llm: llm.client } : {}) });
            if (!enrich) record.enrichment = { status: 'skipped', reason: 'no model assigned to task_analysis in [models.overrides]', attempts: 0, callIds: [] };
            watch.analysisDone();
            const pipeline = { stages: stages.map((s) => STAGES[s]()), kb, task: record, llm: llm.client, runId, budgetTokens, decisions: new RawDecisionLog(raw), log, signal };
            const result = await runPipeline({ ...pipeline, onStage: (name, context) => watch.stageEnded(name, context) }).catch((error: unknown) => {
              if (error instanceof AppError && error.code === 'OLLAMA_UNREACHABLE') {
                const t = llm.target();
                throw new AppError('OLLAMA_UNREACHABLE', noServerHint(t.address, t.source, t.provider), { retryable: true, cause: error });
              }
              throw error;
            });
            const readSource = (path: string) => {
              try {
                return readFileSync(confinePath(info.path, path).absolute, 'utf8');
              } catch {
                return null;
              }
            };
            const pkg = buildPackage({ task: record, files: result.context.files, budgetTokens, readSource, kb });
            const symbols: Record<SymbolRole, number> = { primary: 0, supporting: 0, type_context: 0 };
            for (const f of pkg.files) for (const i of f.items) if (i.symbol) symbols[i.symbol.role]++;
            const judgments = raw.prepare("select count(*) from model_calls where run_id = ? and (stage = 'scope' or stage like 'precision%')").pluck().get(runId) as number;
            const e = record.enrichment;
            const summary: RetrievalSummary = {
              taskId: id,
              files: pkg.files.length,
              symbols,
              tokensUsed: pkg.budget.used,
              budget: budgetTokens,
              dropped: pkg.dropped.length,
              judgments,
              analysis: { enrichment: e.status, ...(e.status !== 'ok' ? { reason: e.reason } : {}) },
            };
            ctx.events.emit('retrieve/package', { runId, repoId: info.id, taskId: id, package: pkg, summary, markdown: renderMarkdown(pkg), stages, verdicts: watch.verdicts });
            return summary;
          } finally {
            kb.close();
            raw.close();
          }
        },
        { repoId: info.id },
      );
      return { runId, taskId: id };
    },
  };
}
