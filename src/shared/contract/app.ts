import { z } from 'zod';
import { event, request } from './define';
import type { RunAttachment, RunFinished, RunInfo, RunProgress, Sequenced } from './runs';

/** Which program hosts the engine. */
export type HostKind = 'electron' | 'serve' | 'cli' | 'test';

/** Static facts about the running engine, for the status bar and Settings. */
export interface AppInfo {
  name: string;
  version: string;
  host: HostKind;
  dataDir: string;
  platform: string;
  nodeVersion: string;
  /** Whether the host can show a native folder picker (Electron) or needs a typed path (browser). */
  canPickFolder: boolean;
  /** How to start this engine's CLI from a terminal or an agent's config: `node` and the absolute path of bin/cra.js (Settings shows the MCP snippets with it). */
  launcher: { command: string; args: string[] };
}

/** Foundation requests: engine facts, the job list and cancellation. */
export const appRequests = {
  'app/info': request<AppInfo>()('Facts about the running engine and where it keeps data.', () => z.object({}).strict(), {}),
  'run/list': request<RunInfo[]>()(
    'Running and recently finished jobs, newest first.',
    () => z.object({ includeFinished: z.boolean().default(true) }).strict(),
    { includeFinished: true },
  ),
  'run/cancel': request<{ cancelled: boolean }>()(
    'Cancel a running job; false when it already finished or is unknown.',
    () => z.object({ runId: z.string().min(1) }).strict(),
    { runId: 'run-does-not-exist' },
  ),
  'run/attach': request<RunAttachment>()(
    "Attach to a run (a second window, a reconnecting tab): its record and its events after `afterSeq` from the run's bounded log, in order; the live ones follow as events with greater `seq`.",
    () => z.object({ runId: z.string().min(1).max(200), afterSeq: z.number().int().min(0).default(0) }).strict(),
    { runId: 'index-0000abcd' },
  ),
  'host/pickFolder': request<{ path: string | null; supported: boolean }>()(
    'Show the native folder picker where the host has one (Electron); in the browser `supported` is false.',
    () => z.object({ title: z.string().max(200).optional() }).strict(),
    {},
  ),
} as const;

/** Foundation events. */
export const appEvents = {
  'run/started': event<RunInfo & Sequenced>()('A long-running job started.'),
  'run/progress': event<RunProgress & Sequenced>()('Progress of a job, tagged with its run id.'),
  'run/finished': event<RunFinished & Sequenced>()('A job ended: done, failed or cancelled.'),
} as const;
