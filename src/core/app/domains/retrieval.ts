import { randomUUID } from 'node:crypto';
import { AppError, type Handlers } from '../../../shared/contract';
import type { RetrievalResult, RetrievalSummary, SymbolRole } from '../../../shared/contract/retrieval';
import { DEFAULT_RETRIEVAL_STAGES } from '../../../shared/contract/stages';
import type { LoadedConfig } from '../../platform/config/load';
import type { EngineContext } from '../engine';
import { readConfinedText } from '../../platform/fs/confine';
import { LlmClient } from '../../platform/llm/client';
import { noServerHint } from '../../platform/llm/ollamaLifecycle';
import { ModelRouter } from '../../platform/llm/router';
import type { ModelServices } from '../../platform/llm/services';
import { RawCallLog } from '../../platform/logs/callLog';
import { effectiveBudget, validateSafetyMargin, RawDecisionLog, renderMarkdown, retrieve, preflightRetrieval, retrievalSettings, analyzeTask } from '../../features/retrieval';
import { RetrievalWatch } from './retrievalWatch';

/** The config with `model` as the model of every retrieval stage and `baseUrl` as the server, when given. */
export function withModelOverride(loaded: LoadedConfig, model?: string, baseUrl?: string): LoadedConfig {
  if (!model && !baseUrl) return loaded;
  const current = loaded.values.models;
  if (!current && !model) return loaded;
  const base = current ?? { provider: 'ollama' as const, context_window: 32768, max_tokens: 4096, temperature: 0, start_ollama: false, timeout_s: 300, overrides: {} };
  const overrides = { ...base.overrides };
  if (model) {
    for (const stage of ['scope', 'precision', 'similarity', 'routing'] as const) overrides[stage] = model;
    // Task analysis is enriched only where the config assigns it a model; the flag replaces that model, never adds one.
    if (overrides.task_analysis !== undefined) overrides.task_analysis = model;
  }
  return { ...loaded, values: { ...loaded.values, models: { ...base, ...(model ? { reasoning: model } : {}), ...(baseUrl ? { base_url: baseUrl } : {}), overrides } } };
}

/**
 * Retrieval as a `retrieve` run (issue #13): preflight (models configured, index populated,
 * enrichment present or an info line), task analysis (enriched only when a model is assigned to
 * task_analysis), the explicit stage list through the runner with a session per task (archived
 * into raw when the run ends), then the context package within the budget. Model calls and every
 * decision go to the repository's raw DB; judgments report progress per stage; the run's result is
 * the package (also pushed as retrieval/package for one release).
 */
export function createRetrievalHandlers(ctx: Pick<EngineContext, 'repos' | 'runs' | 'events'>, llm: Pick<ModelServices, 'client' | 'loadUserConfig' | 'router' | 'target'>): Pick<Handlers, 'retrieval/run'> {
  return {
    'retrieval/run': async ({ repoId, task, budget, safetyMargin: givenMargin, taskId, stages = [...DEFAULT_RETRIEVAL_STAGES], planFiles, model, baseUrl }) => {
      const info = ctx.repos.use(repoId, (repo) => repo.info);
      const loaded = llm.loadUserConfig();
      const overridden = model || baseUrl;
      const router = overridden ? new ModelRouter(withModelOverride(loaded, model, baseUrl)) : llm.router();
      const client = overridden ? new LlmClient({ router: () => router }) : llm.client;
      const config = loaded.values;
      const settings = retrievalSettings(config);
      const safetyMargin = givenMargin ?? validateSafetyMargin(settings.safetyMargin);
      // The window and the reserve: either left out is the config's (the budget's shape is the contract's).
      const bc = budget?.tokens === undefined ? { contextWindow: budget?.contextWindow ?? config.budget.context_window, reservedTokens: budget?.reservedTokens ?? config.budget.reserved_tokens } : undefined;
      const budgetTokens = bc ? effectiveBudget(bc) : (budget?.tokens as number);
      // Held by the run until it ends (given back here when the preflight refuses).
      const repo = ctx.repos.openIndexed(info.id);
      const kb = repo.kb;
      let checks;
      try {
        checks = preflightRetrieval({ resolveModel: () => router.resolve('reasoning', 'scope'), kb, repoPath: info.path });
      } catch (error) {
        repo.dispose();
        throw error;
      }
      const enrich = config.models?.overrides.task_analysis !== undefined;
      const id = taskId ?? `t-${randomUUID()}`;
      const { runId } = ctx.runs.start(
        'retrieve',
        `Retrieve · ${info.name}: ${task.slice(0, 60)}`,
        async ({ runId, signal, progress }): Promise<RetrievalResult> => {
          const raw = repo.raw;
          // The watch pushes each judgment the judge reports (retrieval/judgment) and reports progress per stage.
          const watch = new RetrievalWatch({ runId, taskId: id, stages, emit: (j) => ctx.events.emit('retrieval/judgment', j), progress });
          const log = repo.table(RawCallLog);
          const decisions = repo.table(RawDecisionLog);
          try {
            progress({ phase: 'task analysis', done: 0 });
            const record = await analyzeTask(task, kb, { id, runId, log, signal, ...(enrich ? { llm: client } : {}) });
            if (!enrich) record.enrichment = { status: 'skipped', reason: 'no model assigned to task_analysis in [models.overrides]', attempts: 0, callIds: [] };
            watch.analysisDone();
            if (planFiles?.length) record.givenFiles = planFiles.map((path) => ({ path, reason: { kind: 'plan-file' as const, detail: {} } }));
            const runConfig = { stages, ...(bc ? { contextWindow: bc.contextWindow, reservedTokens: bc.reservedTokens } : {}), budgetTokens, safetyMargin, concurrency: settings.concurrency };
            decisions.record({ runId, stage: 'budget', subjectKind: 'run', subject: runId, decision: 'config', reasons: [], judgment: runConfig });
            // A request can name any path (plan files): a FIFO or a device there is skipped, not read.
            const readSource = (path: string) => readConfinedText(info.path, path);
            const done = await retrieve(
              { task: record, stages, budgetTokens, options: settings.stageOptions },
              {
                kb, llm: client, decisions, runId, log, signal, readSource, sessionsDir: repo.paths.sessions,
                concurrency: settings.concurrency, safetyMargin,
                onStage: (name, context) => watch.stageEnded(name, context),
                onJudged: (stage, n, total, judged) => watch.judged(stage, n, total, judged),
              },
              raw,
            ).catch((error: unknown) => {
              if (error instanceof AppError && error.code === 'OLLAMA_UNREACHABLE' && !overridden) {
                const t = llm.target();
                throw new AppError('OLLAMA_UNREACHABLE', noServerHint(t.address, t.source, t.provider), { retryable: true, cause: error });
              }
              throw error;
            });
            // Standalone retrieval: the session is closed (archived into raw) before the run ends.
            done.session.close({ raw, runId });
            const pkg = done.package;
            const symbols: Record<SymbolRole, number> = { primary: 0, supporting: 0, type_context: 0 };
            for (const f of pkg.files) for (const i of f.items) if (i.symbol) symbols[i.symbol.role]++;
            const usage = { calls: 0, promptTokens: 0, completionTokens: 0, failed: 0 };
            for (const s of done.result.stages) for (const u of Object.values(s.usage ?? {})) for (const k of Object.keys(usage) as Array<keyof typeof usage>) usage[k] += u[k];
            const e = record.enrichment;
            const summary: RetrievalSummary = {
              taskId: id,
              files: pkg.files.length,
              symbols,
              tokensUsed: pkg.budget.used,
              budget: budgetTokens,
              dropped: pkg.dropped.length,
              judgments: watch.judgments,
              analysis: { enrichment: e.status, ...(e.status !== 'ok' ? { reason: e.reason } : {}) },
              info: checks.info,
              stages: done.result.stages.map(({ usage: _u, ...s }) => s),
              usage,
              config: { stages, ...(bc ? { contextWindow: bc.contextWindow, reservedTokens: bc.reservedTokens } : {}), safetyMargin, concurrency: settings.concurrency },
            };
            const result: RetrievalResult = { taskId: id, package: pkg, summary, markdown: renderMarkdown(pkg), stages, verdicts: watch.verdicts };
            // Deprecated, for one release: clients read the run's result.
            ctx.events.emit('retrieval/package', { runId, repoId: info.id, ...result });
            return result;
          } finally {
            repo.dispose();
          }
        },
        { repoId: info.id, task },
      );
      return { ...ctx.runs.started(runId, 'retrieve'), taskId: id };
    },
  };
}
