/**
 * One step to a working setup (models/setupPlan, models/setup, `cra setup`): see what this machine
 * has — Ollama running or installed, the built-in runtime, free memory — propose one model per
 * stage that fits the machine with all of them loaded together, then download what is missing and
 * assign every stage in one write of the config.
 */
import { freemem, totalmem } from 'node:os';
import { AppError, type ModelServerStatus, type ModelSetupPlan, type ModelSetupResult, type SetupModel } from '../../../shared/contract';
import { stageCapability } from '../../../shared/contract/models';
import { editConfigFile, initConfigFile, type ConfigEdit } from '../config/configFile';
import { STAGES, type Stage } from '../config/schema';
import { BUILTIN_CATALOG, catalogUrl } from './builtin/catalog';
import { probeRemoteModel } from './builtin/download';
import { listInstalled } from './modelManager';
import { pullModel } from './pull';
import { fitFor, memoryNeeded, RECOMMENDED } from './recommended';
import type { ModelServices } from './services';

/** What a proposal is made from; the machine's memory can be given (tests) instead of read. */
export interface SetupPlanOptions {
  totalBytes?: number;
  freeBytes?: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** The largest context a setup assigns to a built-in model (its own when smaller). */
const BUILTIN_CONTEXT = 8192;

/** Whether node-llama-cpp can be loaded here (it is an optional part of the install). */
function builtinRuntime(): { available: boolean; reason?: string } {
  try {
    require.resolve('node-llama-cpp');
    return { available: true };
  } catch {
    return { available: false, reason: 'node-llama-cpp is not installed with this copy of the app.' };
  }
}

const norm = (name: string) => (name.includes(':') ? name : `${name}:latest`);

/** Candidates of the Ollama route: the recommended tags, sized from Ollama's downloads. */
function ollamaCandidates(installed: readonly string[]): SetupModel[] {
  const have = new Set(installed.map(norm));
  return RECOMMENDED.map((r) => ({
    name: r.name,
    stages: r.stages,
    capability: r.stages.includes('embedding') ? 'embed' : 'generate',
    sizeBytes: r.downloadBytes,
    memoryBytes: memoryNeeded(r.downloadBytes),
    installed: have.has(norm(r.name)),
  }));
}

/** Candidates of the built-in route: the curated list, sized from each file's GGUF header (Range requests). */
async function builtinCandidates(installed: readonly string[], notes: string[], options: SetupPlanOptions): Promise<SetupModel[]> {
  return Promise.all(
    BUILTIN_CATALOG.map(async (c): Promise<SetupModel> => {
      const url = catalogUrl(c.url, options.env);
      const base: SetupModel = { name: c.name, stages: c.stages, capability: c.stages.includes('embedding') ? 'embed' : 'generate', installed: installed.includes(c.name), url };
      try {
        // A proposal must come quickly: an address that does not answer in 8 s leaves the size unknown.
        const signal = AbortSignal.any([AbortSignal.timeout(8000), ...(options.signal ? [options.signal] : [])]);
        const info = await probeRemoteModel(url, { contextTokens: BUILTIN_CONTEXT, signal });
        return { ...base, sizeBytes: info.sizeBytes, memoryBytes: info.memory.bytes, contextWindow: info.memory.contextTokens };
      } catch (error) {
        notes.push(`The size of ${c.name} could not be read (${(error as Error).message}); it is not counted in the memory total.`);
        return base;
      }
    }),
  );
}

/**
 * One model per stage from `candidates`: for each stage the largest candidate made for it; then,
 * while the distinct models together are too large for the machine, the largest generation model
 * gives its stages to the next smaller one (embedding models stay). Stages no candidate names
 * follow their role.
 */
export function chooseModels(candidates: readonly SetupModel[], totalBytes: number, notes: string[]): SetupModel[] {
  const size = (m: SetupModel) => m.memoryBytes ?? 0;
  const pick = new Map<string, SetupModel>();
  for (const stage of STAGES) {
    const fit = candidates.filter((c) => c.stages.includes(stage) && c.capability === stageCapability(stage));
    const largest = fit.sort((a, b) => size(b) - size(a))[0];
    if (largest) pick.set(stage, largest);
  }
  const together = () => [...new Set(pick.values())].reduce((sum, m) => sum + size(m), 0);
  const generators = candidates.filter((c) => c.capability === 'generate').sort((a, b) => size(b) - size(a));
  while (fitFor(together(), totalBytes) === 'too_large') {
    const used = generators.filter((g) => [...pick.values()].includes(g));
    const largest = used[0];
    const smaller = largest ? generators.slice(generators.indexOf(largest) + 1)[0] : undefined;
    if (!largest || !smaller || used.length === 0) break;
    const moved = [...pick.entries()].filter(([, m]) => m === largest).map(([stage]) => stage);
    for (const stage of moved) pick.set(stage, smaller);
    notes.push(`${largest.name} does not fit beside the others in this machine's memory: ${moved.join(', ')} use ${smaller.name} instead.`);
  }
  const models = new Map<string, SetupModel>();
  for (const [stage, m] of pick) {
    const entry = models.get(m.name) ?? { ...m, stages: [] };
    entry.stages.push(stage);
    models.set(m.name, entry);
  }
  return [...models.values()];
}

/** What is here and what the setup proposes (nothing is downloaded or written). */
export async function planSetup(llm: ModelServices, missingStages: readonly string[], options: SetupPlanOptions = {}): Promise<ModelSetupPlan> {
  const totalBytes = options.totalBytes ?? totalmem();
  const freeBytes = options.freeBytes ?? freemem();
  const notes: string[] = [];
  const status: ModelServerStatus = await llm.lifecycle.check();
  let ollamaInstalled: string[] = [];
  if (status.reachable && status.provider === 'ollama') ollamaInstalled = (await listInstalled(status.address).catch(() => [])).map((m) => m.name);
  const runtime = builtinRuntime();
  const builtinInstalled = llm.modelStore.list().map((m) => m.name);
  let provider: ModelSetupPlan['provider'] = null;
  let candidates: SetupModel[] = [];
  if (status.reachable && status.provider === 'ollama') {
    provider = 'ollama';
    candidates = ollamaCandidates(ollamaInstalled);
    notes.push(`Ollama answers at ${status.address}: the models are pulled there.`);
  } else if (runtime.available) {
    provider = 'builtin';
    candidates = await builtinCandidates(builtinInstalled, notes, options);
    notes.push(status.state === 'not_installed' ? 'Ollama is not installed: the models run inside the app (built-in runtime).' : `Ollama does not answer (${status.state.replace('_', ' ')}): the models run inside the app (built-in runtime).`);
  } else {
    notes.push(`No runtime can be used: Ollama does not answer at ${status.address} and ${runtime.reason ?? 'the built-in runtime is missing.'} Install Ollama, then try again.`);
  }
  const models = provider ? chooseModels(candidates, totalBytes, notes) : [];
  const memoryBytes = models.reduce((sum, m) => sum + (m.memoryBytes ?? 0), 0);
  const downloadBytes = models.filter((m) => !m.installed).reduce((sum, m) => sum + (m.sizeBytes ?? 0), 0);
  return {
    ollama: { state: status.state, address: status.address, installed: ollamaInstalled },
    builtin: { ...runtime, installed: builtinInstalled },
    memory: { totalBytes, freeBytes },
    provider,
    models,
    downloadBytes,
    memoryBytes,
    fit: fitFor(memoryBytes, totalBytes),
    missingStages: [...missingStages],
    notes,
  };
}

/** Progress of a setup run: which model, and bytes of it. */
export interface SetupProgress {
  model: string;
  index: number;
  count: number;
  doneBytes: number;
  totalBytes?: number;
}

/** The config edits that assign a plan's models: the provider, the three roles and every stage it names. */
export function setupEdits(plan: ModelSetupPlan): ConfigEdit[] {
  if (!plan.provider) return [];
  const edits: ConfigEdit[] = [{ path: ['models', 'provider'], value: plan.provider }];
  const of = (stage: Stage) => plan.models.find((m) => m.stages.includes(stage))?.name;
  const roles: Array<[string, string | undefined]> = [
    ['reasoning', of('plan') ?? of('chat')],
    ['coding', of('execute')],
    ['embedding', of('embedding')],
  ];
  for (const [role, model] of roles) if (model) edits.push({ path: ['models', role], value: model });
  for (const m of plan.models) {
    for (const stage of m.stages) edits.push({ path: ['models', 'overrides', stage], value: m.contextWindow ? { model: m.name, context_window: m.contextWindow } : m.name });
  }
  return edits;
}

/**
 * Carry out a plan: download (built-in) or pull (Ollama) each proposed model that is not on this
 * machine, one after the other, then write the assignments in one edit of the user config. A
 * cancelled or failed download writes nothing; a built-in download resumes next time.
 */
export async function runSetup(llm: ModelServices, plan: ModelSetupPlan, options: { signal?: AbortSignal; onProgress?(p: SetupProgress): void } = {}): Promise<ModelSetupResult> {
  const { provider } = plan;
  if (!provider) throw new AppError('UNSUPPORTED', plan.notes.at(-1) ?? 'No model runtime can be used here. Install Ollama, then try again.');
  const todo = plan.models.filter((m) => !m.installed);
  const downloaded: string[] = [];
  for (const [index, m] of todo.entries()) {
    const report = (doneBytes: number, totalBytes?: number) => options.onProgress?.({ model: m.name, index, count: todo.length, doneBytes, ...(totalBytes ? { totalBytes } : {}) });
    report(0, m.sizeBytes);
    if (provider === 'builtin') {
      await llm.modelStore.download(m.name, m.url ?? '', { ...(options.signal ? { signal: options.signal } : {}), onProgress: (p) => report(p.receivedBytes, p.totalBytes) });
    } else {
      await pullModel(plan.ollama.address, m.name, { signal: options.signal ?? new AbortController().signal, onProgress: (s) => report(s.doneBytes, s.totalBytes || undefined) });
    }
    downloaded.push(m.name);
  }
  initConfigFile(llm.userConfigFile);
  editConfigFile(llm.userConfigFile, setupEdits(plan));
  return { provider, downloaded, assigned: plan.models.flatMap((m) => m.stages.map((stage) => ({ stage, model: m.name }))) };
}
