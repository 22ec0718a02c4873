import { existsSync } from 'node:fs';
import { AppError } from '../../../shared/contract';
import { loadConfig, loadUserConfigCached, type LoadedConfig } from '../config/load';
import type { EventBus } from '../runtime/events';
import { UserCallLog } from '../logs/callLog';
import { resolveServerUrl } from './address';
import { createBuiltinProvider } from './builtin/builtinProvider';
import { ModelStore } from './builtin/modelStore';
import { LlamaRuntime } from './builtin/runtime';
import { LlmClient } from './client';
import { probeVersion } from './modelManager';
import { installHint, OllamaLifecycle, type ServerTarget } from './ollamaLifecycle';
import { ModelRouter } from './router';
import { userConfigPath, userRawDbPath } from '../layout';

/** The model layer of one engine: config, routing, the client, the audit log and the server lifecycle. */
export interface ModelServices {
  userConfigFile: string;
  /** The user-level config, read fresh (edits on the Settings page apply at once). */
  loadUserConfig(): LoadedConfig;
  /** A router over the user config, overridden by a repository's config file when given. */
  router(repoConfigFile?: string): ModelRouter;
  /** The client; calls go to the user-level raw DB unless a call passes its own `log`. */
  client: LlmClient;
  callLog: UserCallLog;
  lifecycle: OllamaLifecycle;
  /** The built-in runtime's models (under the data folder). */
  modelStore: ModelStore;
  /** The built-in runtime (its host process starts on the first built-in model call). */
  llama: LlamaRuntime;
  /**
   * The model server address and provider from the config (defaults when there is none), where the
   * address came from, and the config's error when it does not load (then nothing should be probed).
   */
  target(): ServerTarget;
  /** The Ollama address, or a clear error when the server is not installed, not running or not Ollama. */
  requireOllama(): Promise<string>;
  dispose(): Promise<void>;
}

/** What the model layer needs of the engine: the data folder and the bus its server status goes on. */
export interface ModelServicesDeps {
  dataDir: string;
  events: Pick<EventBus, 'emit'>;
}

/** Build the model services of an engine (once, by `createCore`). */
export function createModelServices(deps: ModelServicesDeps, env: NodeJS.ProcessEnv = process.env): ModelServices {
  const userConfigFile = userConfigPath(deps.dataDir);
  const loadUserConfig = () => loadConfig({ userFile: userConfigFile });
  const callLog = new UserCallLog(userRawDbPath(deps.dataDir));
  const router = (repoConfigFile?: string) => new ModelRouter(loadConfig({ userFile: userConfigFile, repoFile: repoConfigFile }), env);
  const target = (): ServerTarget => {
    let models;
    let configError: string | undefined;
    try {
      models = existsSync(userConfigFile) ? loadUserConfig().values.models : undefined;
    } catch (error) {
      // Not the defaults: a broken file may name another server, and "not installed" would be a lie.
      if (!(error instanceof AppError)) throw error;
      configError = error.message;
    }
    const source = models?.base_url ? 'base_url' : env.OLLAMA_HOST?.trim() ? 'OLLAMA_HOST' : 'default';
    return { address: resolveServerUrl(models?.base_url, env), provider: models?.provider ?? 'ollama', allowStart: models?.start_ollama ?? false, source, ...(configError ? { configError } : {}) };
  };
  const lifecycle = new OllamaLifecycle({ target, env, onStatus: (status) => deps.events.emit('models/serverStatus', status) });
  // Every model call resolves its model: from the user config as it is on disk now, parsed again
  // only when the file changed (a chat turn's first token waited on reading and validating it).
  let userRouter: { config: LoadedConfig; router: ModelRouter } | undefined;
  const currentRouter = (): ModelRouter => {
    const config = loadUserConfigCached(deps.dataDir);
    if (userRouter?.config !== config) userRouter = { config, router: new ModelRouter(config, env) };
    return userRouter.router;
  };
  const modelStore = new ModelStore(deps.dataDir);
  // CRA_LLAMA_THREADS: CPU threads of the built-in runtime (default all cores; 1 on a busy shared machine).
  const threads = Number(env.CRA_LLAMA_THREADS);
  const llama = new LlamaRuntime(Number.isInteger(threads) && threads > 0 ? { threads } : {});
  const client = new LlmClient({ router: currentRouter, log: callLog, providers: { builtin: createBuiltinProvider(llama, (name) => modelStore.resolvePath(name)) } });

  const requireOllama = async () => {
    const t = target();
    if (t.configError) throw new AppError('CONFIG_INVALID', t.configError);
    if (t.provider !== 'ollama') throw new AppError('UNSUPPORTED', `Model downloads need Ollama; [models].provider is ${t.provider}. Manage models with your server's own tools.`);
    if (await probeVersion(t.address)) return t.address;
    const status = await lifecycle.check();
    if (status.reachable) return t.address;
    if (status.state === 'not_installed') throw new AppError('OLLAMA_NOT_INSTALLED', installHint(t.address));
    throw new AppError('OLLAMA_UNREACHABLE', status.hint, { retryable: true });
  };

  return {
    userConfigFile,
    loadUserConfig,
    router,
    client,
    callLog,
    lifecycle,
    modelStore,
    llama,
    target,
    requireOllama,
    dispose: async () => {
      await lifecycle.stop();
      await llama.dispose();
      callLog.close();
    },
  };
}
