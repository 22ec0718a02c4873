import { join } from 'node:path';
import type { Handlers } from '../../../shared/contract';
import type { EngineContext } from '../engine';
import { packageRoot } from '../../platform/paths';

type AppHandlers = Pick<Handlers, 'app/info' | 'run/list' | 'run/cancel' | 'run/attach' | 'host/pickFolder'>;

/** Engine facts, the job list and cancellation. */
export function createAppHandlers(ctx: Pick<EngineContext, 'ports' | 'runs' | 'version'>): AppHandlers {
  return {
    'app/info': async () => ({
      name: 'Clean Room',
      version: ctx.version,
      host: ctx.ports.host,
      dataDir: ctx.ports.dataDir,
      platform: `${process.platform}-${process.arch}`,
      nodeVersion: process.versions.node,
      canPickFolder: ctx.ports.pickFolder !== undefined,
      launcher: { command: 'node', args: [join(packageRoot(), 'bin', 'cra.js')] },
    }),
    'run/list': async ({ includeFinished }) => ctx.runs.list(includeFinished),
    'run/cancel': async ({ runId }) => ({ cancelled: ctx.runs.cancel(runId) }),
    'run/attach': async ({ runId, afterSeq }) => ctx.runs.attach(runId, afterSeq),
    'host/pickFolder': async ({ title }) => {
      if (!ctx.ports.pickFolder) return { path: null, supported: false };
      return { path: await ctx.ports.pickFolder(title), supported: true };
    },
  };
}
