import { z } from 'zod';
import { event, request } from './define';

/** The config file and its validated values (defaults filled in). */
export interface ConfigSnapshot {
  path: string;
  exists: boolean;
  /** Validated values; null when the file is missing or invalid. */
  values: Record<string, unknown> | null;
  /** Why the file could not be used, when it could not. */
  error: { code: string; message: string } | null;
}

const scalar = z.union([z.string().max(2000), z.number(), z.boolean()]);
const keyPart = z.string().regex(/^[A-Za-z0-9_-]+$/);

/** Settings requests: the user-level config.toml, edited key by key (comments kept). */
export const configRequests = {
  'config/get': request<ConfigSnapshot>()('The user-level config: its path and values.', () => z.object({}).strict(), {}),
  'config/init': request<ConfigSnapshot & { created: boolean; file: string }>()(
    'Write the commented default config when there is none: the user-level one, or `file` (`cra init --config`); `force` overwrites an existing file. The snapshot is the user-level config; `file` is the file written or left.',
    () => z
      .object({
        /** Where to write it (an absolute path on the engine's machine); default the user-level config.toml. */
        file: z.string().min(1).max(4096).optional(),
        /** Overwrite an existing file (never a folder). */
        force: z.boolean().optional(),
      })
      .strict(),
    {},
  ),
  'config/set': request<ConfigSnapshot>()(
    'Set (or with value null remove) keys; validated before anything is written; comments kept.',
    () => z
      .object({
        edits: z
          .array(z.object({ path: z.array(keyPart).min(2).max(4), value: z.union([scalar, z.record(keyPart, scalar), z.null()]) }).strict())
          .min(1)
          .max(50),
      })
      .strict(),
    { edits: [{ path: ['orchestrator', 'max_parts'], value: 10 }] },
  ),
} as const;

/** Settings events: features that depend on a setting react to this, not to the request. */
export const configEvents = {
  'config/changed': event<ConfigSnapshot>()('The user-level config was edited (config/set); the snapshot after the edit.'),
} as const;
