import { z } from 'zod';
import { event, request } from './define';

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
}

/** Lifecycle of a long-running job. */
export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** A long-running job (index, pull, chat answer, solve run, eval) as the job list shows it. */
export interface RunInfo {
  runId: string;
  kind: string;
  title: string;
  status: RunStatus;
  startedAt: string;
  finishedAt?: string;
  /** Latest progress, when the job reported any. */
  progress?: RunProgress;
  error?: { code: string; message: string };
  /** The repository the run works on (index and embedding runs): ties the run to its row without guessing from the title. */
  repoId?: string;
}

/** A progress report of a run; `done`/`total` drive a determinate bar when total is known. */
export interface RunProgress {
  runId: string;
  kind: string;
  phase: string;
  done: number;
  total?: number;
  /** Items per second in the current phase, when meaningful. */
  rate?: number;
  /** Estimated seconds left in the current phase. */
  etaSeconds?: number;
  message?: string;
}

/** The last word of a run. */
export interface RunFinished {
  runId: string;
  kind: string;
  status: Exclude<RunStatus, 'running'>;
  error?: { code: string; message: string };
  result?: unknown;
}

/** Foundation requests: engine facts, the job list and cancellation. */
export const appRequests = {
  'app/info': request<AppInfo>()('Facts about the running engine and where it keeps data.', z.object({}).strict(), {}),
  'run/list': request<RunInfo[]>()(
    'Running and recently finished jobs, newest first.',
    z.object({ includeFinished: z.boolean().default(true) }).strict(),
    { includeFinished: true },
  ),
  'run/cancel': request<{ cancelled: boolean }>()(
    'Cancel a running job; false when it already finished or is unknown.',
    z.object({ runId: z.string().min(1) }).strict(),
    { runId: 'run-does-not-exist' },
  ),
  'host/pickFolder': request<{ path: string | null; supported: boolean }>()(
    'Show the native folder picker where the host has one (Electron); in the browser `supported` is false.',
    z.object({ title: z.string().max(200).optional() }).strict(),
    {},
  ),
} as const;

/** Foundation events. */
export const appEvents = {
  'run/started': event<RunInfo>()('A long-running job started.'),
  'run/progress': event<RunProgress>()('Progress of a job, tagged with its run id.'),
  'run/finished': event<RunFinished>()('A job ended: done, failed or cancelled.'),
} as const;
