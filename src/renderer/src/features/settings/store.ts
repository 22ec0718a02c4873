import { create } from 'zustand';
import type { ConfigSnapshot } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';

interface SettingsState {
  config: ConfigSnapshot | null;
  isSaving: boolean;
  error: OpError | null;
  savedAt: number | null;
}

interface SettingsActions {
  load(): Promise<void>;
  create(): Promise<void>;
  save(edits: Array<{ path: string[]; value: string | number | boolean | null }>): Promise<void>;
}

/** The user-level config as the Settings page edits it. */
export const useSettingsStore = create<SettingsState & SettingsActions>()((set) => ({
  config: null,
  isSaving: false,
  error: null,
  savedAt: null,
  load: async () => {
    try {
      set({ config: await client().call('config/get', {}), error: null });
    } catch (error) {
      set({ error: toOpError(error) });
    }
  },
  create: async () => {
    try {
      set({ config: await client().call('config/init', {}), error: null });
    } catch (error) {
      set({ error: toOpError(error) });
    }
  },
  save: async (edits) => {
    set({ isSaving: true });
    try {
      set({ config: await client().call('config/set', { edits }), error: null, isSaving: false, savedAt: Date.now() });
    } catch (error) {
      set({ error: toOpError(error), isSaving: false });
    }
  },
}));
