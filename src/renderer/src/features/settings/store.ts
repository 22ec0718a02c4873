import { create } from 'zustand';
import type { ConfigSnapshot } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';

interface SettingsState {
  config: ConfigSnapshot | null;
  isSaving: boolean;
  error: OpError | null;
  savedAt: number | null;
  /**
   * Edited values not saved yet, by dotted key, as typed. Kept here, not in the page, so leaving
   * Settings and coming back keeps them (the page says they are unsaved and offers Discard).
   */
  drafts: Record<string, string>;
}

interface SettingsActions {
  load(): Promise<void>;
  create(): Promise<void>;
  save(edits: Array<{ path: string[]; value: string | number | boolean | null }>): Promise<void>;
  setDraft(key: string, value: string): void;
  /** Drop the unsaved edits. */
  discard(): void;
}

/** The user-level config as the Settings page edits it. */
export const useSettingsStore = create<SettingsState & SettingsActions>()((set) => ({
  config: null,
  isSaving: false,
  error: null,
  savedAt: null,
  drafts: {},
  setDraft: (key, value) => set((s) => ({ drafts: { ...s.drafts, [key]: value } })),
  discard: () => set({ drafts: {} }),
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
      set({ config: await client().call('config/set', { edits }), error: null, isSaving: false, savedAt: Date.now(), drafts: {} });
    } catch (error) {
      set({ error: toOpError(error), isSaving: false });
    }
  },
}));
