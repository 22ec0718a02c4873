import { existsSync } from 'node:fs';
import type { Handlers, InstalledModel, ModelAssignments, RequestInput, StageAssignment } from '../../../shared/contract';
import { AppError } from '../../../shared/contract';
import { capabilityOfName } from '../../../shared/contract/models';
import { editConfigFile, initConfigFile, type ConfigEdit } from '../../platform/config/configFile';
import { defaultRoleOf, ROLES, STAGES } from '../../platform/config/schema';
import type { EngineContext } from '../engine';
import { deleteModel, listInstalled, loadedModels, showModel } from '../../platform/llm/modelManager';
import { pullModel } from '../../platform/llm/pull';
import { RECOMMENDED, recommendedModels, withAlongside } from '../../platform/llm/recommended';
import type { ResolvedModel } from '../../platform/llm/router';
import type { ModelServices } from '../../platform/llm/services';

type ModelsHandlers = Pick<
  Handlers,
  | 'models/status'
  | 'models/startServer'
  | 'models/list'
  | 'models/show'
  | 'models/ps'
  | 'models/pull'
  | 'models/delete'
  | 'models/recommended'
  | 'models/assignments'
  | 'models/assign'
  | 'models/assignStages'
  | 'models/test'
>;

/** The model manager: server health, installed models, pulls, assignments and "Test model". */
export function createModelsHandlers(ctx: Pick<EngineContext, 'events' | 'runs'>, llm: ModelServices): ModelsHandlers {
  return {
    'models/status': () => llm.lifecycle.check(),
    'models/startServer': () => llm.lifecycle.check({ mayStart: true }),
    'models/list': async () => ({ models: llm.target().provider === 'builtin' ? builtinInstalled(llm) : await listInstalled(await llm.requireOllama()) }),
    'models/show': async ({ name }) => showModel(await llm.requireOllama(), name),
    'models/ps': async () => ({ models: await loadedModels(await llm.requireOllama()) }),
    'models/delete': async ({ name }) => {
      if (llm.target().provider === 'builtin') llm.modelStore.remove(name);
      else await deleteModel(await llm.requireOllama(), name);
      return { deleted: true as const };
    },
    'models/pull': async ({ name }) => {
      const address = await llm.requireOllama();
      const { runId } = ctx.runs.start('pull', `Pull ${name}`, async (run) => {
        await pullModel(address, name, {
          signal: run.signal,
          stallMs: stallMs(),
          onProgress: (s) => {
            run.progress({ phase: s.phase, done: s.doneBytes, ...(s.totalBytes ? { total: s.totalBytes } : {}), rate: s.bytesPerSecond, ...(s.etaSeconds !== null ? { etaSeconds: s.etaSeconds } : {}), message: name });
            ctx.events.emit('models/pullProgress', { runId: run.runId, model: name, ...s });
          },
        });
        return { model: name };
      }, { model: name });
      return ctx.runs.started(runId, 'pull');
    },
    'models/recommended': async () => {
      let installed: InstalledModel[] = [];
      try {
        installed = await listInstalled(await llm.requireOllama());
      } catch {
        // No server: the recommendations still help someone deciding what to download.
      }
      const { totalmem, freemem } = await import('node:os');
      const models = withAlongside(recommendedModels(new Set(installed.map((m) => m.name))), assignedModels(llm, installed));
      return { totalMemoryBytes: totalmem(), freeMemoryBytes: freemem(), models };
    },
    'models/assignments': async () => assignments(llm),
    'models/assign': async (input) => {
      initConfigFile(llm.userConfigFile);
      const edit: ConfigEdit = input.stage
        ? { path: ['models', 'overrides', input.stage], value: overrideValue(input) }
        : { path: ['models', input.role as string], value: input.model ?? undefined };
      editConfigFile(llm.userConfigFile, [edit]);
      return assignments(llm);
    },
    'models/assignStages': async ({ changes }) => {
      initConfigFile(llm.userConfigFile);
      editConfigFile(llm.userConfigFile, changes.map((c) => ({ path: ['models', 'overrides', c.stage], value: overrideValue(c) })));
      return assignments(llm);
    },
    'models/test': async ({ model, prompt }) => {
      const resolved = testModel(llm, model);
      const result = await llm.client.complete(prompt, { model: resolved, stage: 'test', runId: undefined });
      return { model, text: result.text, promptTokens: result.promptTokens, completionTokens: result.completionTokens, latencyMs: result.latencyMs };
    },
  };
}

/** The built-in runtime's models as the installed list shows them. */
function builtinInstalled(llm: ModelServices): InstalledModel[] {
  return llm.modelStore.list().map((m) => ({ name: m.name, sizeBytes: m.sizeBytes, loaded: false, capability: capabilityOfName(m.name), modifiedAt: m.addedAt }));
}

/** The distinct models the stages use now, with their sizes where known (none when the config does not load). */
function assignedModels(llm: ModelServices, installed: readonly InstalledModel[]): Array<{ name: string; sizeBytes?: number }> {
  let rows: StageAssignment[];
  try {
    rows = assignments(llm).rows;
  } catch {
    return [];
  }
  const names = [...new Set(rows.map((r) => r.model).filter((m): m is string => Boolean(m)))];
  return names.map((name) => {
    const size = installed.find((m) => m.name === name || m.name === `${name}:latest`)?.sizeBytes ?? RECOMMENDED.find((r) => r.name === name)?.downloadBytes;
    return size ? { name, sizeBytes: size } : { name };
  });
}

function overrideValue(input: Pick<RequestInput<'models/assign'>, 'model' | 'contextWindow' | 'maxTokens'>) {
  if (input.model === null) return undefined;
  if (input.contextWindow === undefined && input.maxTokens === undefined) return input.model;
  return { model: input.model, ...(input.contextWindow ? { context_window: input.contextWindow } : {}), ...(input.maxTokens ? { max_tokens: input.maxTokens } : {}) };
}

/** Seconds without bytes before a pull reconnects (CRA_PULL_STALL_S for tests and slow links). */
function stallMs(): number {
  const s = Number(process.env.CRA_PULL_STALL_S);
  return Number.isFinite(s) && s > 0 ? s * 1000 : 30_000;
}

/** The assignment table from the user config (every stage, with where its model comes from). */
export function assignments(llm: ModelServices): ModelAssignments {
  const configPath = llm.userConfigFile;
  const configExists = existsSync(configPath);
  const values = configExists ? llm.loadUserConfig().values : undefined;
  const models = values?.models;
  const roles = Object.fromEntries(ROLES.map((r) => [r, models?.[r] ?? null]));
  const rows: StageAssignment[] = STAGES.map((stage) => {
    const role = defaultRoleOf(stage);
    if (!models) return { stage, role, model: null, contextWindow: null, maxTokens: null, source: 'none' };
    try {
      const r = llm.router().resolve(role, stage);
      return { stage, role, model: r.model, contextWindow: r.contextWindow, maxTokens: r.maxTokens, source: r.source };
    } catch (error) {
      if (error instanceof AppError && error.code === 'CONFIG_MISSING') return { stage, role, model: null, contextWindow: null, maxTokens: null, source: 'none' };
      throw error;
    }
  });
  return { configPath, configExists, roles, rows, defaults: { contextWindow: models?.context_window ?? 32768, maxTokens: models?.max_tokens ?? 4096 } };
}

/** The model of "Test model": the configured server and limits, or safe defaults without a config. */
function testModel(llm: ModelServices, model: string): ResolvedModel {
  const t = llm.target();
  const models = existsSync(llm.userConfigFile) ? llm.loadUserConfig().values.models : undefined;
  return {
    model,
    baseUrl: t.address,
    provider: t.provider,
    temperature: models?.temperature ?? 0,
    maxTokens: Math.min(models?.max_tokens ?? 256, 256),
    contextWindow: Math.min(models?.context_window ?? 4096, 8192),
    timeoutMs: Math.round((models?.timeout_s ?? 120) * 1000),
    role: 'reasoning',
    stage: 'test',
    source: 'role',
  };
}
