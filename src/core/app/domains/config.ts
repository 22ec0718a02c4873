import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { ConfigSnapshot, Handlers } from '../../../shared/contract';
import { AppError } from '../../../shared/contract';
import { editConfigFile, initConfigFile } from '../../platform/config/configFile';
import type { EngineContext } from '../engine';
import type { ModelServices } from '../../platform/llm/services';

/** Settings: the user-level config.toml as values, edited key by key with comments kept. */
export function createConfigHandlers(ctx: Pick<EngineContext, 'events'>, llm: ModelServices): Pick<Handlers, 'config/get' | 'config/init' | 'config/set'> {
  const snapshot = (): ConfigSnapshot => {
    const path = llm.userConfigFile;
    if (!existsSync(path)) return { path, exists: false, values: null, error: { code: 'CONFIG_MISSING', message: `No config yet at ${path}. Run \`cra init\` or press "Create config".` } };
    try {
      return { path, exists: true, values: JSON.parse(JSON.stringify(llm.loadUserConfig().values)) as Record<string, unknown>, error: null };
    } catch (error) {
      if (error instanceof AppError) return { path, exists: true, values: null, error: { code: error.code, message: error.message } };
      throw error;
    }
  };
  return {
    'config/get': async () => snapshot(),
    'config/init': async ({ file, force }) => {
      if (file !== undefined && !isAbsolute(file)) throw new AppError('VALIDATION', `"${file}" is a relative path; give the config file's absolute path.`);
      const { path, created } = initConfigFile(file ?? llm.userConfigFile, { force });
      return { ...snapshot(), created, file: path };
    },
    'config/set': async ({ edits }) => {
      editConfigFile(
        llm.userConfigFile,
        edits.map((e) => ({ path: e.path, value: e.value ?? undefined })),
      );
      const after = snapshot();
      // A changed embeddings switch applies at once, without a restart (the search domain listens).
      ctx.events.emit('config/changed', after);
      return after;
    },
  };
}
